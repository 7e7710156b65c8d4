package cloudinit

import (
	"bytes"
	"crypto/rand"
	"io"
	"mime"
	"mime/multipart"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"
	"gopkg.in/yaml.v3"

	"github.com/ybbench/ybbench/internal/golden"
)

// fixtureKey is a host key kept in testdata, so the golden files do not
// change with every run (an OpenSSH private key holds random check bytes).
func fixtureKey(t *testing.T) HostKey {
	t.Helper()
	priv, err := os.ReadFile("testdata/host_ed25519_key")
	if err != nil {
		t.Fatal(err)
	}
	pub, err := os.ReadFile("testdata/host_ed25519_key.pub")
	if err != nil {
		t.Fatal(err)
	}
	return HostKey{Private: string(priv), Public: strings.TrimSpace(string(pub))}
}

func params(t *testing.T, cloud string) Params {
	return Params{
		RunID:     "ycsb-ysql-261201-1830-0a1b2c3d",
		Host:      "db-1",
		Cloud:     cloud,
		HostKey:   fixtureKey(t),
		Expires:   time.Date(2026, 12, 2, 2, 30, 0, 0, time.FixedZone("CET", 3600)),
		DataDisks: 2,
	}
}

func TestRenderGolden(t *testing.T) {
	for _, cloud := range []string{CloudAWS, CloudGCP} {
		t.Run(cloud, func(t *testing.T) {
			got, err := Render(params(t, cloud))
			if err != nil {
				t.Fatal(err)
			}
			golden.Check(t, cloud+".userdata", got)
			// EC2 takes at most 16 KB of user data before base64 (the
			// EC2 user guide, "Run commands when you launch an EC2
			// instance with user data input"); GCP's metadata value, 256 KB.
			if len(got) > 16<<10 {
				t.Errorf("user data is %d bytes, over EC2's 16 KB", len(got))
			}
			again, err := Render(params(t, cloud))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, again) {
				t.Error("two renderings of the same parameters differ")
			}
		})
	}
}

// part is one MIME part as a standard-library reader sees it.
type part struct {
	contentType string
	body        []byte
}

// splitParts parses user data with mime/multipart, independently of how
// Render wrote it.
func splitParts(t *testing.T, data []byte) []part {
	t.Helper()
	head, rest, ok := bytes.Cut(data, []byte("\r\n\r\n"))
	if !ok {
		t.Fatal("no header block")
	}
	var ct string
	for _, line := range strings.Split(string(head), "\r\n") {
		if v, ok := strings.CutPrefix(line, "Content-Type: "); ok {
			ct = v
		}
	}
	mt, ps, err := mime.ParseMediaType(ct)
	if err != nil || mt != "multipart/mixed" {
		t.Fatalf("top-level Content-Type %q: %v", ct, err)
	}
	r := multipart.NewReader(bytes.NewReader(rest), ps["boundary"])
	var parts []part
	for {
		p, err := r.NextPart()
		if err == io.EOF {
			return parts
		}
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(p)
		if err != nil {
			t.Fatal(err)
		}
		mt, _, err := mime.ParseMediaType(p.Header.Get("Content-Type"))
		if err != nil {
			t.Fatal(err)
		}
		parts = append(parts, part{mt, b})
	}
}

// TestCloudConfigPinsTheHostKey reads the cloud-config part as YAML and
// checks that the key it installs is the key the run pins: the private
// half cloud-init writes for sshd derives the public half in the params.
func TestCloudConfigPinsTheHostKey(t *testing.T) {
	for _, cloud := range []string{CloudAWS, CloudGCP} {
		t.Run(cloud, func(t *testing.T) {
			p := params(t, cloud)
			data, err := Render(p)
			if err != nil {
				t.Fatal(err)
			}
			parts := splitParts(t, data)
			if len(parts) != 2 || parts[0].contentType != "text/cloud-config" || parts[1].contentType != "text/x-shellscript" {
				t.Fatalf("parts: %+v", parts)
			}
			cc := parts[0].body
			if !bytes.HasPrefix(cc, []byte("#cloud-config\n")) {
				t.Errorf("cloud-config part does not start with #cloud-config")
			}
			var doc struct {
				DeleteKeys  *bool             `yaml:"ssh_deletekeys"`
				GenKeyTypes *[]string         `yaml:"ssh_genkeytypes"`
				Keys        map[string]string `yaml:"ssh_keys"`
				Mounts      [][]any           `yaml:"mounts"`
				WriteFiles  []struct {
					Path, Content string
				} `yaml:"write_files"`
			}
			if err := yaml.Unmarshal(cc, &doc); err != nil {
				t.Fatalf("cloud-config is not YAML: %v", err)
			}
			if doc.DeleteKeys == nil || !*doc.DeleteKeys {
				t.Error("ssh_deletekeys is not true")
			}
			if doc.GenKeyTypes == nil || len(*doc.GenKeyTypes) != 0 {
				t.Errorf("ssh_genkeytypes = %v, want an empty list", doc.GenKeyTypes)
			}
			if len(doc.Keys) != 2 {
				t.Errorf("ssh_keys has %d entries, want ed25519's two", len(doc.Keys))
			}
			signer, err := ssh.ParsePrivateKey([]byte(doc.Keys["ed25519_private"]))
			if err != nil {
				t.Fatalf("ed25519_private: %v", err)
			}
			pin, _, _, _, err := ssh.ParseAuthorizedKey([]byte(p.HostKey.Public))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(signer.PublicKey().Marshal(), pin.Marshal()) {
				t.Error("the private key installed does not match the pinned public key")
			}
			// OpenSSH's own reading of the key cloud-init writes to
			// /etc/ssh/ssh_host_ed25519_key, where sshd will load it.
			if _, err := exec.LookPath("ssh-keygen"); err == nil {
				f := filepath.Join(t.TempDir(), "ssh_host_ed25519_key")
				if err := os.WriteFile(f, []byte(doc.Keys["ed25519_private"]), 0o600); err != nil {
					t.Fatal(err)
				}
				out, err := exec.Command("ssh-keygen", "-y", "-f", f).CombinedOutput()
				if err != nil {
					t.Fatalf("ssh-keygen -y: %v\n%s", err, out)
				}
				if got := strings.TrimSpace(string(out)); got != p.HostKey.Public {
					t.Errorf("ssh-keygen derives %q from the installed key, the pin is %q", got, p.HostKey.Public)
				}
			}
			if doc.Keys["ed25519_public"] != p.HostKey.Public {
				t.Errorf("ed25519_public = %q, want the pin %q", doc.Keys["ed25519_public"], p.HostKey.Public)
			}
			if len(doc.Mounts) != 1 || len(doc.Mounts[0]) != 2 || doc.Mounts[0][0] != "ephemeral0" || doc.Mounts[0][1] != nil {
				t.Errorf("mounts = %v, want [[ephemeral0, null]]", doc.Mounts)
			}
			agentOff := len(doc.WriteFiles) == 1 && doc.WriteFiles[0].Path == "/etc/default/instance_configs.cfg" &&
				strings.Contains(doc.WriteFiles[0].Content, "[InstanceSetup]\nset_host_keys = false\n")
			if want := cloud == CloudGCP; agentOff != want {
				t.Errorf("write_files %+v: guest agent's set_host_keys turned off = %v, want %v", doc.WriteFiles, agentOff, want)
			}
			golden.BashSyntax(t, "first boot script", string(parts[1].body))
		})
	}
}

// TestFirstBootScript checks what the shell part arms: the expiry timer
// at the expiry in UTC, before the disks are touched, and the disk script
// exactly as DiskScript renders it.
func TestFirstBootScript(t *testing.T) {
	p := params(t, CloudAWS)
	data, err := Render(p)
	if err != nil {
		t.Fatal(err)
	}
	sh := string(splitParts(t, data)[1].body)
	if !strings.Contains(sh, "\nOnCalendar=2026-12-02 01:30:00 UTC\n") {
		t.Errorf("no OnCalendar at the expiry in UTC (01:30 UTC for 02:30 CET):\n%s", sh)
	}
	if !strings.Contains(sh, "\nExecStart=/usr/bin/systemctl poweroff\n") {
		t.Error("the expiry does not power off")
	}
	timer, disks := strings.Index(sh, "enable --now ybbench-expire.timer"), strings.LastIndex(sh, "/usr/local/sbin/ybbench-disks\n")
	if timer < 0 || disks < 0 || timer > disks {
		t.Errorf("the expiry timer is not armed before the disk script runs (at %d, %d)", timer, disks)
	}
	ds, err := DiskScript(2)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(sh, "<<'EOF_DISKS'\n"+ds+"EOF_DISKS\n") {
		t.Error("the disk script is not installed verbatim")
	}
	golden.BashSyntax(t, "disk script", ds)
}

func TestRenderRejects(t *testing.T) {
	good := params(t, CloudAWS)
	other, err := GenerateHostKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		edit func(*Params)
		want []string
	}{
		{"run id with a space", func(p *Params) { p.RunID = "a b" }, []string{`run id "a b"`}},
		{"run id too long", func(p *Params) { p.RunID = strings.Repeat("a", 65) }, []string{"run id"}},
		{"host with a quote", func(p *Params) { p.Host = "db'1" }, []string{`host "db'1"`}},
		{"unknown cloud", func(p *Params) { p.Cloud = "azure" }, []string{`cloud "azure"`}},
		{"halves of two keys", func(p *Params) { p.HostKey.Public = other.Public }, []string{"does not belong"}},
		{"no key", func(p *Params) { p.HostKey = HostKey{} }, []string{"host key"}},
		{"no expiry", func(p *Params) { p.Expires = time.Time{} }, []string{"expires"}},
		{"negative disks", func(p *Params) { p.DataDisks = -1 }, []string{"data disks"}},
		{"all at once", func(p *Params) { p.RunID, p.Cloud, p.Expires = "", "", time.Time{} },
			[]string{"run id", "cloud", "expires"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := good
			tc.edit(&p)
			_, err := Render(p)
			if err == nil {
				t.Fatal("accepted")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not name %q", err, w)
				}
			}
		})
	}
}

func TestGenerateHostKey(t *testing.T) {
	a, err := GenerateHostKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	b, err := GenerateHostKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	if a.Public == b.Public {
		t.Error("two keys are the same")
	}
	signer, err := ssh.ParsePrivateKey([]byte(a.Private))
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSpace(string(ssh.MarshalAuthorizedKey(signer.PublicKey()))); got != a.Public {
		t.Errorf("public half %q, the private half's is %q", a.Public, got)
	}
	if !strings.HasPrefix(a.Public, "ssh-ed25519 ") || strings.Count(a.Public, " ") != 1 {
		t.Errorf("public half %q: want \"ssh-ed25519 <base64>\" without a comment", a.Public)
	}
	if err := a.check(); err != nil {
		t.Error(err)
	}
	if _, err := GenerateHostKey(bytes.NewReader(nil)); err == nil {
		t.Error("no randomness, no error")
	}
}

// TestOnCalendar has systemd read the timer's time back, where it can:
// the normalized form must be the same instant, in UTC.
func TestOnCalendar(t *testing.T) {
	at := time.Date(2099, 3, 4, 5, 6, 7, 800, time.FixedZone("PST", -8*3600))
	got := OnCalendar(at)
	if got != "2099-03-04 13:06:07 UTC" {
		t.Errorf("OnCalendar = %q", got)
	}
	if _, err := exec.LookPath("systemd-analyze"); err != nil {
		t.Skip("no systemd-analyze to read it back")
	}
	out, err := exec.Command("systemd-analyze", "calendar", got).CombinedOutput()
	if err != nil {
		t.Fatalf("systemd-analyze calendar %q: %v\n%s", got, err, out)
	}
	if !strings.Contains(string(out), "Normalized form: "+got+"\n") {
		t.Errorf("systemd reads %q as:\n%s", got, out)
	}
}
