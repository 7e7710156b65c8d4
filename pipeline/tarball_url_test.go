package pipeline

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTarballURLSecretsStayInSecrets: a tarball URL with userinfo and a
// token is recorded redacted in run.json (read back by a resume), kept
// whole only in secrets/ (0600), and that whole URL is what Install gets.
func TestTarballURLSecretsStayInSecrets(t *testing.T) {
	const url = "https://me:PASSWORD1@dl.example/releases/yugabyte-2.20.1.3.tar.gz?token=TOKEN2"
	s := Defaults()
	s.Flavor, s.YBTarball, s.RunsDir = "yugabyte", url, t.TempDir()
	res, err := s.Resolve()
	if err != nil {
		t.Fatal(err)
	}
	r, err := New(res, Deps{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var files []string
	filepath.Walk(r.Dir(), func(p string, info os.FileInfo, err error) error {
		if err == nil && info.Mode().IsRegular() {
			files = append(files, p)
		}
		return nil
	})
	secret := filepath.Join(r.Dir(), "secrets", TarballURLFile)
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		leaks := strings.Contains(string(b), "PASSWORD1") || strings.Contains(string(b), "TOKEN2")
		if p == secret {
			if strings.TrimSpace(string(b)) != url {
				t.Errorf("%s holds %q, want the whole URL", p, b)
			}
			continue
		}
		if leaks {
			t.Errorf("%s holds the URL's secret:\n%s", p, b)
		}
	}
	st, err := os.Stat(secret)
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("%s: %v, %v", secret, st, err)
	}
	run, err := os.ReadFile(filepath.Join(r.Dir(), "run.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(run), `"yb_tarball": "https://REDACTED@dl.example/releases/yugabyte-2.20.1.3.tar.gz?REDACTED"`) {
		t.Errorf("run.json does not hold the redacted URL:\n%s", run)
	}
	if got, err := r.tarball(); err != nil || got != url {
		t.Errorf("Install would get %q (%v), want the whole URL", got, err)
	}
	dir := r.Dir()
	r.Close()
	// A resume reads the spec back from run.json, redacted, and still
	// installs from the whole URL.
	again, err := Open(dir, Deps{})
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	if again.spec.YBTarball == url {
		t.Error("the reopened spec holds the whole URL: it came from run.json unredacted")
	}
	if got, err := again.tarball(); err != nil || got != url {
		t.Errorf("after a resume Install would get %q (%v)", got, err)
	}
}

// TestValidateRefusesHTTPWithoutSHA256: a plain http:// tarball needs its
// sha256, refused before anything is created, naming the setting and not
// the URL's secrets.
func TestValidateRefusesHTTPWithoutSHA256(t *testing.T) {
	s := Defaults()
	s.Flavor, s.YBTarball = "yugabyte", "http://me:PASSWORD1@mirror.example/yugabyte-2.20.1.3.tar.gz?token=TOKEN2"
	err := s.Validate()
	if err == nil || !strings.Contains(err.Error(), "yb_tarball: http://REDACTED@mirror.example/yugabyte-2.20.1.3.tar.gz?REDACTED is plain http://: give its sha256 (yb_sha256, --yb-sha256)") {
		t.Fatalf("got %v", err)
	}
	if strings.Contains(err.Error(), "PASSWORD1") || strings.Contains(err.Error(), "TOKEN2") {
		t.Errorf("the error shows the URL's secrets: %v", err)
	}
	s.YBSHA256 = strings.Repeat("ab", 32)
	if err := s.Validate(); err != nil {
		t.Errorf("with its sha256: %v", err)
	}
	s.YBSHA256, s.YBTarball = "", "https://mirror.example/yugabyte-2.20.1.3.tar.gz"
	if err := s.Validate(); err != nil {
		t.Errorf("https without a sha256 (the release server's .sha is used): %v", err)
	}
}
