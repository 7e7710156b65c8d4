package gcp

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"errors"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"

	"github.com/ybbench/ybbench/infra"
	"github.com/ybbench/ybbench/infra/terraform/tftest"
	"github.com/ybbench/ybbench/internal/exitcode"
)

// testRunID is the run the fixtures hold resources of: its run hash is
// 83e7a2d1b2148bc6 (testdata/cases/instances-left.json, networks-left.json).
const testRunID = "kv-ycql-261201-1830-0a1b2c3d"

// testSpec is kv-ycql's documented GCP hardware in the fixture project:
// 3 × n1-standard-16 with 2 local SSDs each, and a client.
func testSpec(t *testing.T) infra.ClusterSpec {
	t.Helper()
	pub, _, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	sshPub, err := ssh.NewPublicKey(pub)
	if err != nil {
		t.Fatal(err)
	}
	runDir := t.TempDir()
	return infra.ClusterSpec{
		Name: testRunID, RunDir: runDir, DBHosts: 3, ClientHosts: 1,
		InstanceType: "n1-standard-16", ClientType: "n1-standard-16",
		Disks: infra.Disks{Count: 2, Kind: DiskLocalSSD, SizeGB: 375},
		Owner: "Alice Smith", Lifetime: 6 * time.Hour,
		PublicKey:      strings.TrimSpace(string(ssh.MarshalAuthorizedKey(sshPub))) + " ybbench-run",
		PrivateKeyFile: filepath.Join(runDir, "ssh", "id_ed25519"),
		Options: map[string]string{
			infra.OptionProject: "ybb-test",
			infra.OptionSSHCIDR: "203.0.113.7/32",
		},
	}
}

// testProvider reaches the fixture server and runs the fake terraform.
func testProvider(t *testing.T, api *apiServer, tf *tftest.Fake) *Provider {
	t.Helper()
	return New(ClientOptions(api.options()...), TerraformBinary(tf.Bin), Logger(slog.New(slog.DiscardHandler)))
}

// settingErrors collects the settings every *infra.SettingError in err's
// tree names, with its message.
func settingErrors(err error) map[string]string {
	out := map[string]string{}
	var walk func(error)
	walk = func(e error) {
		if e == nil {
			return
		}
		var se *infra.SettingError
		if s, ok := e.(*infra.SettingError); ok {
			se = s
			out[se.Setting] += se.Err.Error() + "\n"
		}
		switch u := e.(type) {
		case interface{ Unwrap() []error }:
			for _, x := range u.Unwrap() {
				walk(x)
			}
		case interface{ Unwrap() error }:
			walk(u.Unwrap())
		}
	}
	walk(err)
	return out
}

func TestCheckPasses(t *testing.T) {
	api, tf := newAPIServer(t), tftest.New(t)
	p := testProvider(t, api, tf)
	spec := testSpec(t)
	if err := p.Check(context.Background(), spec); err != nil {
		t.Fatalf("Check: %v", err)
	}
	f, err := p.check(context.Background(), spec, false)
	if err != nil {
		t.Fatal(err)
	}
	if f.zone != DefaultZone || f.zoneNote != "" || f.cpus["n1-standard-16"] != 16 {
		t.Errorf("zone %s (%q), cpus %v", f.zone, f.zoneNote, f.cpus)
	}
	if f.resolved != "ubuntu-2204-jammy-v20261110" || f.terraformVersion != "1.5.7" {
		t.Errorf("image %q, terraform %q", f.resolved, f.terraformVersion)
	}
	// 4 hosts × 16 vCPUs of 190 free; 3 db hosts × 2 × 375 GB of 6000.
	want := []string{"CPUS need 64, free 190 of 200", "LOCAL_SSD_TOTAL_GB need 2250, free 6000 of 6000"}
	if !slices.Equal(f.quotas, want) {
		t.Errorf("quotas %q, want %q", f.quotas, want)
	}
	for _, path := range []string{
		"projects/ybb-test/regions/us-central1",
		"projects/ybb-test/zones/us-central1-a",
		"projects/ybb-test/zones/us-central1-a/machineTypes/n1-standard-16",
		"projects/ubuntu-os-cloud/global/images/family/ubuntu-2204-lts",
	} {
		if _, ok := api.request(path); !ok {
			t.Errorf("no request for %s (requests: %q)", path, api.paths())
		}
	}
	// The zone offers the type: no other zone is asked.
	for _, path := range api.paths() {
		if strings.Contains(path, "us-central1-b") || strings.Contains(path, "us-central1-f") {
			t.Errorf("asked %s though the zone offers the type", path)
		}
	}
}

func TestCheckMachineTypeNotOffered(t *testing.T) {
	api, tf := newAPIServer(t), tftest.New(t)
	p := testProvider(t, api, tf)
	spec := testSpec(t)
	spec.Zone = "us-central1-f"
	err := p.Check(context.Background(), spec)
	if exitcode.Of(err) != exitcode.Config {
		t.Fatalf("exit %d, want 2: %v", exitcode.Of(err), err)
	}
	msg := settingErrors(err)[SettingZone]
	for _, want := range []string{"n1-standard-16 is not offered in us-central1-f",
		"the zones of us-central1 that offer it: us-central1-a, us-central1-b, us-central1-c", "zone_fallback=true"} {
		if !strings.Contains(msg, want) {
			t.Errorf("zone problem %q does not say %q (whole error: %v)", msg, want, err)
		}
	}
	// The 404 is the zone's answer for the type: asked of f, then of every
	// zone of the region.
	if _, ok := api.request("projects/ybb-test/zones/us-central1-f/machineTypes/n1-standard-16"); !ok {
		t.Errorf("zone f was not asked: %q", api.paths())
	}
}

func TestCheckZoneFallback(t *testing.T) {
	for _, tc := range []struct {
		name, client, want string
		cpus               map[string]int32
		quota              string
	}{
		// f offers no n1-standard-16: a is the first zone that does.
		{"one type", "n1-standard-16", "us-central1-a", map[string]int32{"n1-standard-16": 16}, "CPUS need 64, free 190 of 200"},
		// The client's n2-standard-8 is in b, c and f, the db type in a,
		// b and c: b is the first zone that offers both, and the N2
		// family's own quota counts the client.
		{"every type", "n2-standard-8", "us-central1-b", map[string]int32{"n1-standard-16": 16, "n2-standard-8": 8}, "N2_CPUS need 8, free 24 of 24"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			api, tf := newAPIServer(t), tftest.New(t)
			p := testProvider(t, api, tf)
			spec := testSpec(t)
			spec.Zone, spec.ClientType = "us-central1-f", tc.client
			spec.Options[infra.OptionZoneFallback] = "true"
			f, err := p.check(context.Background(), spec, false)
			if err != nil {
				t.Fatal(err)
			}
			if f.zone != tc.want || !strings.Contains(f.zoneNote, "us-central1-f does not offer n1-standard-16") ||
				!strings.Contains(f.zoneNote, "chose "+tc.want) {
				t.Errorf("zone %s, note %q; want %s", f.zone, f.zoneNote, tc.want)
			}
			for typ, n := range tc.cpus {
				if f.cpus[typ] != n {
					t.Errorf("cpus %v, want %v", f.cpus, tc.cpus)
				}
			}
			if !slices.Contains(f.quotas, tc.quota) {
				t.Errorf("quotas %q lack %q", f.quotas, tc.quota)
			}
		})
	}
}

// TestCheckNoZoneSet: a region set without a zone gets the region's first
// zone that offers the types, recorded.
func TestCheckNoZoneSet(t *testing.T) {
	api, tf := newAPIServer(t), tftest.New(t)
	p := testProvider(t, api, tf)
	spec := testSpec(t)
	spec.Region, spec.ClientType = "us-central1", "n2-standard-8"
	f, err := p.check(context.Background(), spec, false)
	if err != nil {
		t.Fatal(err)
	}
	if f.zone != "us-central1-b" || !strings.Contains(f.zoneNote, "chose us-central1-b") {
		t.Errorf("zone %s, note %q: want us-central1-b, the first offering both types", f.zone, f.zoneNote)
	}
}

func TestCheckQuotaShort(t *testing.T) {
	for _, tc := range []struct {
		name, fixture, metric string
		need, free            float64
		says                  string
	}{
		{"CPUS", "region-cpus-short.json", QuotaCPUs, 64, 48, "quota CPUS in region us-central1 is short: need 64, free 48 (limit 72, in use 24)"},
		{"LOCAL_SSD_TOTAL_GB", "region-localssd-short.json", QuotaLocalSSD, 2250, 1500,
			"quota LOCAL_SSD_TOTAL_GB in region us-central1 is short: need 2250, free 1500 (limit 3000, in use 1500)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			api, tf := newAPIServer(t), tftest.New(t)
			api.answer("projects/ybb-test/regions/us-central1", tc.fixture)
			p := testProvider(t, api, tf)
			err := p.Check(context.Background(), testSpec(t))
			if exitcode.Of(err) != exitcode.Infra {
				t.Fatalf("exit %d, want 3: %v", exitcode.Of(err), err)
			}
			var qe *QuotaError
			if !errors.As(err, &qe) || qe.Metric != tc.metric || qe.Need != tc.need || qe.Free != tc.free {
				t.Fatalf("quota error %+v: %v", qe, err)
			}
			if !strings.Contains(err.Error(), tc.says) {
				t.Errorf("%v\ndoes not say %q", err, tc.says)
			}
			// A Create resumed on a run whose hosts may hold the usage
			// logs the shortfall instead.
			if _, err := p.check(context.Background(), testSpec(t), true); err != nil {
				t.Errorf("resumed: %v", err)
			}
		})
	}
}

func TestCheckAPIRefusals(t *testing.T) {
	for _, tc := range []struct {
		name, path, fixture string
		exit                int
		setting             string
		says                []string
	}{
		{"403 quotaExceeded", "projects/ybb-test/zones/us-central1-a/machineTypes/n1-standard-16", "error-403-quota-exceeded.json",
			exitcode.Infra, "", []string{"reading machine type n1-standard-16 in us-central1-a", "HTTP 403 quotaExceeded", "Read requests per minute", "wait a minute"}},
		{"403 API disabled", "projects/ybb-test/regions/us-central1", "error-403-api-disabled.json",
			exitcode.Config, infra.OptionProject, []string{"accessNotConfigured", "gcloud services enable compute.googleapis.com --project ybb-test"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			api, tf := newAPIServer(t), tftest.New(t)
			api.answer(tc.path, tc.fixture)
			p := testProvider(t, api, tf)
			err := p.Check(context.Background(), testSpec(t))
			if exitcode.Of(err) != tc.exit {
				t.Fatalf("exit %d, want %d: %v", exitcode.Of(err), tc.exit, err)
			}
			if tc.setting != "" && settingErrors(err)[tc.setting] == "" {
				t.Errorf("no problem of setting %s: %v", tc.setting, err)
			}
			for _, s := range tc.says {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("%v\ndoes not say %q", err, s)
				}
			}
		})
	}
}

// TestCheckEveryProblemAtOnce: a zone not in the region, an unknown image
// family, an open ssh_cidr, a lifetime out of bounds and a missing
// terraform, in one error naming each setting.
func TestCheckEveryProblemAtOnce(t *testing.T) {
	api := newAPIServer(t)
	p := New(ClientOptions(api.options()...), TerraformBinary(filepath.Join(t.TempDir(), "no-terraform")))
	spec := testSpec(t)
	spec.Zone = "us-central1-z"
	spec.Lifetime = 10 * time.Minute
	spec.Options[infra.OptionImage] = "ubuntu-os-cloud/no-such-family"
	spec.Options[infra.OptionSSHCIDR] = "0.0.0.0/0"
	err := p.Check(context.Background(), spec)
	if exitcode.Of(err) != exitcode.Config {
		t.Fatalf("exit %d, want 2: %v", exitcode.Of(err), err)
	}
	got := settingErrors(err)
	for setting, want := range map[string]string{
		SettingZone:         "us-central1-z is not a zone of region us-central1 (its zones: us-central1-a, us-central1-b, us-central1-c, us-central1-f)",
		infra.OptionImage:   `no image family "no-such-family" in project ubuntu-os-cloud`,
		infra.OptionSSHCIDR: `0.0.0.0/0 would open SSH to the whole internet`,
		SettingLifetime:     "10m0s: want 30m0s to 168h0m0s",
	} {
		if !strings.Contains(got[setting], want) {
			t.Errorf("setting %s: %q, want it to say %q", setting, got[setting], want)
		}
	}
	if !strings.Contains(err.Error(), "terraform not found at") {
		t.Errorf("the missing terraform is not reported: %v", err)
	}
}

func TestCheckUnknownRegion(t *testing.T) {
	api, tf := newAPIServer(t), tftest.New(t)
	p := testProvider(t, api, tf)
	spec := testSpec(t)
	spec.Region = "us-nowhere1"
	err := p.Check(context.Background(), spec)
	want := `no region "us-nowhere1" in project ybb-test (the project's regions: europe-west4, us-central1, us-east1)`
	if exitcode.Of(err) != exitcode.Config || !strings.Contains(settingErrors(err)[SettingRegion], want) {
		t.Errorf("exit %d, %v\nwant a region problem saying %q", exitcode.Of(err), err, want)
	}
}

// TestCheckWithoutProject: the project is required; nothing is asked of
// the API without one.
func TestCheckWithoutProject(t *testing.T) {
	api, tf := newAPIServer(t), tftest.New(t)
	p := testProvider(t, api, tf)
	spec := testSpec(t)
	delete(spec.Options, infra.OptionProject)
	err := p.Check(context.Background(), spec)
	if exitcode.Of(err) != exitcode.Config || !strings.Contains(settingErrors(err)[infra.OptionProject], "not set") {
		t.Errorf("exit %d: %v", exitcode.Of(err), err)
	}
	if n := len(api.paths()); n != 0 {
		t.Errorf("%d API requests without a project: %q", n, api.paths())
	}
}

// TestCheckWithoutCredentials: Application Default Credentials that
// cannot be found or read stop the check before any API call, naming the
// sources tried and how to set one.
func TestCheckWithoutCredentials(t *testing.T) {
	for _, tc := range []struct {
		name string
		env  func(t *testing.T) string // sets the environment, returns the GOOGLE_APPLICATION_CREDENTIALS source named
	}{
		{"key file missing", func(t *testing.T) string {
			missing := filepath.Join(t.TempDir(), "key.json")
			t.Setenv(EnvCredentials, missing)
			return EnvCredentials + "=" + missing
		}},
		{"none anywhere", func(t *testing.T) string {
			t.Setenv(EnvCredentials, "")
			return EnvCredentials + " (not set)"
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tf := tftest.New(t)
			home := t.TempDir()
			t.Setenv("HOME", home)
			source := tc.env(t)
			p := New(TerraformBinary(tf.Bin))
			err := p.Check(context.Background(), testSpec(t))
			if err == nil && tc.name == "none anywhere" {
				t.Skip("this machine answers as a Google Cloud metadata server with credentials")
			}
			if exitcode.Of(err) != exitcode.Config {
				t.Fatalf("exit %d, want 2: %v", exitcode.Of(err), err)
			}
			var ce *CredentialsError
			if !errors.As(err, &ce) {
				t.Fatalf("not a credentials error: %v", err)
			}
			for _, want := range []string{source, filepath.Join(home, ".config/gcloud/application_default_credentials.json"),
				"metadata server", "gcloud auth application-default login"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("%v\ndoes not say %q", err, want)
				}
			}
		})
	}
}
