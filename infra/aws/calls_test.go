package aws

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
	"github.com/ybbench/ybbench/infra/terraform"
	"github.com/ybbench/ybbench/infra/terraform/tftest"
)

// TestTerraformCalls makes the c5 setup's hosts and destroys them with a
// fake terraform and a fake EC2 that has nothing left, and checks every
// Terraform call (arguments, working directory, environment), the modes
// of the files that hold the hosts' private keys, the cluster, and that
// the host key each host installs is the one the cluster pins.
func TestTerraformCalls(t *testing.T) {
	tf := newFakeTerraform(t)
	fe := newFakeEC2(t)
	runDir := t.TempDir()
	t.Setenv("AWS_REGION", "us-west-2") // the AWS provider reads its settings from the environment
	t.Setenv("TF_VAR_ami", "ami-ffffffffffffffff0")
	t.Setenv("YBBENCH_YB_TARBALL", "https://example.com/signed?secret")

	p := New(TerraformBinary(tf.Bin), Config(staticConfig(fe.srv.URL)))
	p.random = newSeeded("host keys")
	s, _ := readSettings(c5Spec())
	r := testRun(t, runDir)
	created := time.Date(2026, 12, 1, 18, 0, 0, 0, time.UTC)
	st := runState{Created: created, Expires: created.Add(6 * time.Hour), Zone: "us-west-2a", ZoneReason: "as set", AMI: "ami-0123456789abcdef0"}
	f := &facts{account: "123456789012", arn: "arn:aws:iam::123456789012:user/bench", region: "us-west-2", zone: "us-west-2a",
		zoneReason: "as set", image: DefaultImage, ami: st.AMI, terraformBinary: tf.Bin, terraformVersion: "1.5.7", vcpus: "need 64, free 1216 of 1280"}

	c, err := p.make(context.Background(), r, s, st, f)
	if err != nil {
		t.Fatal(err)
	}

	work := filepath.Join(runDir, "terraform")
	varFile := filepath.Join(work, terraform.VarFileName)
	planFile := filepath.Join(work, terraform.PlanFileName)
	calls := tf.Calls(t)
	if verbs, want := tftest.Verbs(calls), []string{"version", "init", "plan", "apply", "output"}; !reflect.DeepEqual(verbs, want) {
		t.Fatalf("terraform calls %v, want %v", verbs, want)
	}
	for _, c := range calls[1:] {
		if c.Cwd != work {
			t.Errorf("%s ran in %s, want %s", c.Args[0], c.Cwd, work)
		}
		if c.Env["CHECKPOINT_DISABLE"] != "1" || c.Env["AWS_REGION"] != "us-west-2" {
			t.Errorf("%s: environment %v: want CHECKPOINT_DISABLE=1 and the AWS settings kept", c.Args[0], c.Env)
		}
		for k := range c.Env {
			if strings.HasPrefix(k, "TF_VAR_") || strings.HasPrefix(k, "YBBENCH_") {
				t.Errorf("%s: %s reached terraform", c.Args[0], k)
			}
		}
		if c.DirMode != "700" {
			t.Errorf("%s: working directory mode %s, want 700", c.Args[0], c.DirMode)
		}
		if m := c.VarsMode; m != "" && m != "600" {
			t.Errorf("%s: variables file mode %s, want 600", c.Args[0], m)
		}
	}
	has := func(c tftest.Call, arg string) bool { return slices.Contains(c.Args, arg) }
	if init := calls[1]; !has(init, "-input=false") || !has(init, "-upgrade=false") {
		t.Errorf("init %v", init.Args)
	}
	if plan := calls[2]; !has(plan, "-out="+planFile) || !has(plan, "-var-file="+varFile) || !has(plan, "-input=false") {
		t.Errorf("plan %v", plan.Args)
	}
	if apply := calls[3]; apply.Args[len(apply.Args)-1] != planFile || slices.ContainsFunc(apply.Args, func(a string) bool { return strings.HasPrefix(a, "-var-file") }) {
		t.Errorf("apply %v: want the saved plan and no variables", apply.Args)
	}
	if out := calls[4]; !has(out, "-json") {
		t.Errorf("output %v", out.Args)
	}
	if calls[2].VarsMode != "600" {
		t.Errorf("plan: variables file mode %q, want 600", calls[2].VarsMode)
	}

	// The fake wrote its plan and state 0644, as Terraform does.
	assertMode(t, work, 0o700)
	for _, name := range []string{terraform.VarFileName, terraform.PlanFileName, terraform.StateFileName} {
		assertMode(t, filepath.Join(work, name), 0o600)
	}
	assertMode(t, filepath.Join(runDir, stateDir), 0o700)
	assertMode(t, statePath(runDir), 0o600)

	// The cluster.
	if c.Provider != "aws" || c.Name != r.id || !c.CreatedAt.Equal(created) || !c.ExpiresAt.Equal(created.Add(6*time.Hour)) {
		t.Errorf("cluster %s/%s created %v expires %v", c.Provider, c.Name, c.CreatedAt, c.ExpiresAt)
	}
	wantMeta := map[string]string{MetaRunDir: runDir, MetaRegion: "us-west-2", MetaTerraformBinary: tf.Bin,
		infra.MetaTerraformVersion: "1.5.7", MetaZone: "us-west-2a", MetaZoneReason: "as set", MetaAccount: "123456789012",
		MetaARN: "arn:aws:iam::123456789012:user/bench", MetaImage: DefaultImage, MetaAMI: "ami-0123456789abcdef0",
		MetaVCPUs: "need 64, free 1216 of 1280"}
	if !reflect.DeepEqual(c.Meta, wantMeta) {
		t.Errorf("meta:\n got %v\nwant %v", c.Meta, wantMeta)
	}
	installed := installedHostKeys(t, varFile)
	for i, h := range c.Hosts {
		dataDirs := []string{"/mnt/d0", "/mnt/d1"}
		if h.Has(infra.RoleClient) {
			dataDirs = nil
		}
		if h.Cloud != "aws" || h.Region != "us-west-2" || h.Zone != "us-west-2a" || h.InstanceType != "c5.4xlarge" ||
			h.ProviderID != "i-0000000000000000"+string(rune('a'+i)) || h.Base != "/opt/ybbench" || h.ServiceUser != "ybbench" ||
			!reflect.DeepEqual(h.DataDirs, dataDirs) || h.Shared {
			t.Errorf("host %d: %+v", i, h)
		}
		if h.SSH.User != "ubuntu" || h.SSH.Port != 22 || h.SSH.KeyFile != r.keyFile || h.SSH.HostKeySource == "" {
			t.Errorf("%s: ssh %+v", h.Name, h.SSH)
		}
		pinned, _, _, _, err := ssh.ParseAuthorizedKey([]byte(h.SSH.HostKey))
		if err != nil {
			t.Fatalf("%s: pinned key: %v", h.Name, err)
		}
		if got, ok := installed[h.Name]; !ok || string(got.Marshal()) != string(pinned.Marshal()) {
			t.Errorf("%s: the user data installs another key than the one pinned", h.Name)
		}
	}

	// A second make of the same run (a resumed up) keeps the keys and
	// times: the variables, and so every host's user data, are the same.
	before, _ := os.ReadFile(varFile)
	again, found, err := loadState(runDir)
	if err != nil || !found {
		t.Fatalf("state: %v %v", found, err)
	}
	p.random = newSeeded("other keys")
	if _, err := p.make(context.Background(), r, s, again, f); err != nil {
		t.Fatal(err)
	}
	if after, _ := os.ReadFile(varFile); string(after) != string(before) {
		t.Error("a second Create changed the module's variables")
	}

	// Destroy from the cluster alone.
	n := len(tf.Calls(t))
	if err := New(Config(staticConfig(fe.srv.URL))).Destroy(context.Background(), c); err != nil {
		t.Fatalf("Destroy: %v", err)
	}
	calls = tf.Calls(t)[n:]
	// show: what the state records, before destroy (removeUntracked).
	if len(calls) != 3 || calls[0].Args[0] != "version" || calls[1].Args[0] != "show" || calls[2].Args[0] != "destroy" {
		t.Fatalf("destroy calls: %v", calls)
	}
	if d := calls[2]; d.Cwd != work || !has(d, "-auto-approve") || !has(d, "-input=false") || !has(d, "-var-file="+varFile) {
		t.Errorf("destroy %v in %s", d.Args, d.Cwd)
	}
	for _, name := range []string{terraform.StateFileName, terraform.StateFileName + ".backup"} {
		assertMode(t, filepath.Join(work, name), 0o600)
	}
	got := fe.actions()
	for _, want := range []string{"DescribeInstances", "DescribeVolumes", "DescribeKeyPairs", "DescribePlacementGroups", "DescribeSecurityGroups",
		"DescribeRouteTables", "DescribeInternetGateways", "DescribeSubnets", "DescribeVpcs"} {
		if !slices.Contains(got, want) {
			t.Errorf("Destroy did not look for what remains with %s (asked: %v)", want, got)
		}
	}
	if slices.Contains(got, "DescribeTags") {
		t.Error("Destroy used DescribeTags, which keeps deleted resources' tags")
	}
}

func assertMode(t *testing.T, path string, want os.FileMode) {
	t.Helper()
	st, err := os.Stat(path)
	if err != nil {
		t.Error(err)
		return
	}
	if st.Mode().Perm() != want {
		t.Errorf("%s: mode %04o, want %04o", path, st.Mode().Perm(), want)
	}
}

// installedHostKeys reads the variables file as Terraform would and
// returns, for each host, the public half of the private host key its
// user data's cloud-config installs.
func installedHostKeys(t *testing.T, varFile string) map[string]ssh.PublicKey {
	t.Helper()
	b, err := os.ReadFile(varFile)
	if err != nil {
		t.Fatal(err)
	}
	var vars struct {
		Hosts []hostVar `json:"hosts"`
	}
	if err := json.Unmarshal(b, &vars); err != nil {
		t.Fatal(err)
	}
	out := map[string]ssh.PublicKey{}
	for _, h := range vars.Hosts {
		msg, err := mail.ReadMessage(strings.NewReader(h.UserData))
		if err != nil {
			t.Fatalf("%s: user data: %v", h.Name, err)
		}
		_, params, err := mime.ParseMediaType(msg.Header.Get("Content-Type"))
		if err != nil {
			t.Fatalf("%s: user data: %v", h.Name, err)
		}
		mr := multipart.NewReader(msg.Body, params["boundary"])
		for {
			part, err := mr.NextPart()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("%s: user data: %v", h.Name, err)
			}
			if !strings.HasPrefix(part.Header.Get("Content-Type"), "text/cloud-config") {
				continue
			}
			var cc struct {
				SSHKeys map[string]string `yaml:"ssh_keys"`
			}
			body, _ := io.ReadAll(part)
			if err := yaml.Unmarshal(body, &cc); err != nil {
				t.Fatalf("%s: cloud-config: %v", h.Name, err)
			}
			signer, err := ssh.ParsePrivateKey([]byte(cc.SSHKeys["ed25519_private"]))
			if err != nil {
				t.Fatalf("%s: installed private key: %v", h.Name, err)
			}
			out[h.Name] = signer.PublicKey()
		}
	}
	return out
}
