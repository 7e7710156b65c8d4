package gcp

import (
	"context"
	"encoding/json"
	"io"
	"mime"
	"mime/multipart"
	"net/mail"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"
	"gopkg.in/yaml.v3"

	"github.com/ybbench/ybbench/infra"
	"github.com/ybbench/ybbench/infra/cloudinit"
	"github.com/ybbench/ybbench/infra/cloudtag"
	"github.com/ybbench/ybbench/infra/terraform/tftest"
)

// hostsOutput is what `terraform output -json` gives for the run's four
// hosts, as terraform/gcp's outputs.tf builds it.
const hostsOutput = `{
  "hosts": {
    "sensitive": false,
    "type": ["list", ["object", {"name": "string"}]],
    "value": [
      {"name": "db-1", "role": "db", "public_ip": "34.70.0.11", "private_ip": "10.42.1.2", "zone": "us-central1-a", "provider_id": "6410000000000000011", "instance_type": "n1-standard-16"},
      {"name": "db-2", "role": "db", "public_ip": "34.70.0.12", "private_ip": "10.42.1.3", "zone": "us-central1-a", "provider_id": "6410000000000000012", "instance_type": "n1-standard-16"},
      {"name": "db-3", "role": "db", "public_ip": "34.70.0.13", "private_ip": "10.42.1.4", "zone": "us-central1-a", "provider_id": "6410000000000000013", "instance_type": "n1-standard-16"},
      {"name": "client-1", "role": "client", "public_ip": "34.70.0.14", "private_ip": "10.42.1.5", "zone": "us-central1-a", "provider_id": "6410000000000000014", "instance_type": "https://www.googleapis.com/compute/v1/projects/ybb-test/zones/us-central1-a/machineTypes/n1-standard-16"}
    ]
  }
}`

var testNow = time.Date(2026, 12, 1, 17, 30, 15, 0, time.UTC)

// created makes the run's hosts against the fixture server and the fake
// terraform.
func created(t *testing.T) (*Provider, *tftest.Fake, *apiServer, infra.ClusterSpec, *infra.Cluster) {
	t.Helper()
	api, tf := newAPIServer(t), tftest.New(t)
	tf.SetOutput(t, hostsOutput)
	p := testProvider(t, api, tf)
	p.now = func() time.Time { return testNow }
	spec := testSpec(t)
	c, err := p.Create(context.Background(), spec)
	if err != nil {
		t.Fatal(err)
	}
	return p, tf, api, spec, c
}

func mode(t *testing.T, path string) os.FileMode {
	t.Helper()
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return st.Mode().Perm()
}

// TestCreateTerraformCalls: the gcp stack's init, plan and apply against
// the fake terraform: arguments, working directory, environment (the
// google provider's credentials through, ybbench's settings and TF_VAR_*
// not), and the variables file 0600 in a 0700 directory when Terraform
// reads it; the state and plan Terraform leaves are 0600 after.
func TestCreateTerraformCalls(t *testing.T) {
	t.Setenv(EnvCredentials, "/home/alice/key.json")
	t.Setenv("YBBENCH_YB_TARBALL", "https://example.com/signed?token=secret")
	t.Setenv("TF_VAR_ssh_cidr", "0.0.0.0/0")
	_, tf, _, spec, _ := created(t)

	wd := filepath.Join(spec.RunDir, "terraform")
	plan, varFile := filepath.Join(wd, "tfplan"), filepath.Join(wd, "terraform.tfvars.json")
	want := [][]string{
		{"version", "-json"}, // the check's, in a directory of its own
		{"version", "-json"},
		{"init", "-no-color", "-input=false", "-backend=true", "-get=true", "-upgrade=false"},
		{"plan", "-no-color", "-input=false", "-detailed-exitcode", "-lock-timeout=0s", "-out=" + plan,
			"-var-file=" + varFile, "-lock=true", "-parallelism=10", "-refresh=true"},
		{"apply", "-no-color", "-auto-approve", "-input=false", "-lock=true", "-parallelism=10", "-refresh=true", plan},
		{"output", "-no-color", "-json"},
	}
	calls := tf.Calls(t)
	if len(calls) != len(want) {
		t.Fatalf("%d calls, want %d: %+v", len(calls), len(want), calls)
	}
	for i, c := range calls {
		if !reflect.DeepEqual(c.Args, want[i]) {
			t.Errorf("call %d:\n got %q\nwant %q", i, c.Args, want[i])
		}
		if c.Env[EnvCredentials] != "/home/alice/key.json" {
			t.Errorf("call %d (%s): the google provider's credentials did not reach it: %v", i, c.Args[0], c.Env)
		}
		if c.Env["CHECKPOINT_DISABLE"] != "1" || c.Env["YBBENCH_YB_TARBALL"] != "" || c.Env["TF_VAR_ssh_cidr"] != "" {
			t.Errorf("call %d (%s): environment %v", i, c.Args[0], c.Env)
		}
		if i < 1 {
			continue
		}
		if c.Cwd != wd || c.DirMode != "700" {
			t.Errorf("call %d (%s) in %s (mode %s), want %s (700)", i, c.Args[0], c.Cwd, c.DirMode, wd)
		}
		if i >= 2 && c.VarsMode != "600" {
			t.Errorf("call %d (%s): variables file mode %s, want 600", i, c.Args[0], c.VarsMode)
		}
	}
	for _, name := range []string{"terraform.tfvars.json", "terraform.tfstate", "tfplan", RunStateFile} {
		if m := mode(t, filepath.Join(wd, name)); m != 0o600 {
			t.Errorf("%s: mode %o, want 600", name, m)
		}
	}
	if m := mode(t, wd); m != 0o700 {
		t.Errorf("%s: mode %o, want 700", wd, m)
	}
}

// userData is what a host's user data holds, as cloud-init reads it.
type userData struct {
	pub, priv, script string
	// files are the cloud-config part's write_files, path → content.
	files map[string]string
}

// readUserData reads the ed25519 host key a host's user data installs (its
// cloud-config part's ssh_keys), the files it writes and the shell part.
func readUserData(t *testing.T, ud string) userData {
	t.Helper()
	msg, err := mail.ReadMessage(strings.NewReader(ud))
	if err != nil {
		t.Fatal(err)
	}
	_, params, err := mime.ParseMediaType(msg.Header.Get("Content-Type"))
	if err != nil {
		t.Fatal(err)
	}
	r := multipart.NewReader(msg.Body, params["boundary"])
	out := userData{files: map[string]string{}}
	for {
		part, err := r.NextPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(part)
		switch {
		case strings.HasPrefix(part.Header.Get("Content-Type"), "text/cloud-config"):
			var cc struct {
				SSHKeys    map[string]string `yaml:"ssh_keys"`
				WriteFiles []struct {
					Path, Content string
				} `yaml:"write_files"`
			}
			if err := yaml.Unmarshal(b, &cc); err != nil {
				t.Fatal(err)
			}
			out.pub, out.priv = cc.SSHKeys["ed25519_public"], cc.SSHKeys["ed25519_private"]
			for _, f := range cc.WriteFiles {
				out.files[f.Path] = f.Content
			}
		case strings.HasPrefix(part.Header.Get("Content-Type"), "text/x-shellscript"):
			out.script = string(b)
		}
	}
	return out
}

// TestCreateCluster: the cluster Create returns and the variables it gave
// Terraform, checked against independent sources: the fixtures (zone,
// image), cloudtag (hash, names), and the user data itself (the host key
// a host will present is the one cluster.json pins).
func TestCreateCluster(t *testing.T) {
	_, tf, _, spec, c := created(t)

	if c.Provider != ProviderName || c.Name != testRunID || !c.CreatedAt.Equal(testNow) || !c.ExpiresAt.Equal(testNow.Add(6*time.Hour)) {
		t.Errorf("cluster %s/%s created %s expires %s", c.Provider, c.Name, c.CreatedAt, c.ExpiresAt)
	}
	runDir, _ := filepath.Abs(spec.RunDir)
	for k, want := range map[string]string{
		MetaRunDir: runDir, MetaProject: "ybb-test", MetaRegion: "us-central1", MetaZone: "us-central1-a",
		MetaImage: DefaultImage, MetaImageResolved: "ubuntu-os-cloud/ubuntu-2204-jammy-v20261110",
		MetaNamePrefix: "ybb-83e7a2d1b2148bc6", infra.MetaTerraformVersion: "1.5.7", infra.MetaTerraformBinary: tf.Bin,
		MetaQuotas: "CPUS need 64, free 190 of 200; LOCAL_SSD_TOTAL_GB need 2250, free 6000 of 6000",
	} {
		if c.Meta[k] != want {
			t.Errorf("meta %s = %q, want %q", k, c.Meta[k], want)
		}
	}

	b, err := os.ReadFile(filepath.Join(runDir, "terraform", "terraform.tfvars.json"))
	if err != nil {
		t.Fatal(err)
	}
	var vars struct {
		RunHash       string            `json:"run_hash"`
		NamePrefix    string            `json:"name_prefix"`
		Zone          string            `json:"zone"`
		Image         string            `json:"image"`
		SSHCIDR       string            `json:"ssh_cidr"`
		MaxRunSeconds int64             `json:"max_run_seconds"`
		Hosts         []hostPlan        `json:"hosts"`
		UserData      map[string]string `json:"user_data"`
		SSHPublicKey  string            `json:"ssh_public_key"`
		Owner         string            `json:"owner"`
	}
	if err := json.Unmarshal(b, &vars); err != nil {
		t.Fatal(err)
	}
	names, _ := cloudtag.NamesFor(testRunID)
	if vars.RunHash != cloudtag.RunHash(testRunID) || vars.NamePrefix+"-net" != names.Network || vars.Zone != "us-central1-a" ||
		vars.Image != "ubuntu-os-cloud/ubuntu-2204-jammy-v20261110" || vars.SSHCIDR != "203.0.113.7/32" ||
		vars.MaxRunSeconds != 6*3600 || vars.Owner != "alice_smith" || !strings.HasPrefix(spec.PublicKey, vars.SSHPublicKey) ||
		strings.Contains(vars.SSHPublicKey, "ybbench-run") {
		t.Errorf("variables %+v", vars)
	}

	var wantHosts []string
	for i, h := range c.Hosts {
		wantHosts = append(wantHosts, h.Name)
		if h.Cloud != "gcp" || h.Region != "us-central1" || h.Zone != "us-central1-a" || h.InstanceType != "n1-standard-16" ||
			h.ProviderID == "" || h.Base != "/opt/ybbench" || h.ServiceUser != "ybbench" {
			t.Errorf("host %d: %+v", i, h)
		}
		if h.SSH.User != "ubuntu" || h.SSH.Port != 22 || h.SSH.KeyFile != spec.PrivateKeyFile || h.SSH.HostKeySource != HostKeySource {
			t.Errorf("host %s ssh %+v", h.Name, h.SSH)
		}
		wantDirs := []string(nil)
		if h.Has(infra.RoleDB) {
			wantDirs = []string{"/mnt/d0", "/mnt/d1"}
		}
		if !slices.Equal(h.DataDirs, wantDirs) || vars.Hosts[i].LocalSSDs != len(wantDirs) {
			t.Errorf("host %s: data dirs %q, local SSDs %d", h.Name, h.DataDirs, vars.Hosts[i].LocalSSDs)
		}
		ud := readUserData(t, vars.UserData[h.Name])
		pub, priv, script := ud.pub, ud.priv, ud.script
		signer, err := ssh.ParsePrivateKey([]byte(priv))
		if err != nil {
			t.Fatalf("host %s: private host key in the user data: %v", h.Name, err)
		}
		derived := strings.TrimSpace(string(ssh.MarshalAuthorizedKey(signer.PublicKey())))
		if h.SSH.HostKey == "" || pub != h.SSH.HostKey || derived != h.SSH.HostKey {
			t.Errorf("host %s pins %q; its user data installs %q (private half's: %q)", h.Name, h.SSH.HostKey, pub, derived)
		}
		// Google's guest agent would make new host keys at first boot,
		// and the pin would no longer match: the GCP user data turns
		// that off.
		if cfg := ud.files["/etc/default/instance_configs.cfg"]; !strings.Contains(cfg, "set_host_keys = false") {
			t.Errorf("host %s: the user data does not keep the guest agent off the host keys: %q", h.Name, cfg)
		}
		if !strings.Contains(script, cloudinit.OnCalendar(c.ExpiresAt)) {
			t.Errorf("host %s: the user data's power-off is not at %s", h.Name, cloudinit.OnCalendar(c.ExpiresAt))
		}
	}
	if !slices.Equal(wantHosts, []string{"db-1", "db-2", "db-3", "client-1"}) {
		t.Errorf("hosts %q", wantHosts)
	}
	if c.Hosts[0].SSH.HostKey == c.Hosts[1].SSH.HostKey {
		t.Error("two hosts share a host key")
	}
}

// TestCreateIsIdempotent: a second Create of the run, later, gives
// Terraform the same variables (same host keys, times, image): nothing
// would be replaced.
func TestCreateIsIdempotent(t *testing.T) {
	p, _, _, spec, c := created(t)
	vf := filepath.Join(spec.RunDir, "terraform", "terraform.tfvars.json")
	first, err := os.ReadFile(vf)
	if err != nil {
		t.Fatal(err)
	}
	p.now = func() time.Time { return testNow.Add(time.Hour) }
	c2, err := p.Create(context.Background(), spec)
	if err != nil {
		t.Fatal(err)
	}
	second, err := os.ReadFile(vf)
	if err != nil {
		t.Fatal(err)
	}
	if string(first) != string(second) {
		t.Error("the second Create gave Terraform other variables")
	}
	if !c2.ExpiresAt.Equal(c.ExpiresAt) || c2.Hosts[0].SSH.HostKey != c.Hosts[0].SSH.HostKey {
		t.Errorf("second cluster expires %s (first %s), host key %q (first %q)", c2.ExpiresAt, c.ExpiresAt, c2.Hosts[0].SSH.HostKey, c.Hosts[0].SSH.HostKey)
	}
}
