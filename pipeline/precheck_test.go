package pipeline

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ybbench/ybbench/infra"
	"github.com/ybbench/ybbench/infra/inventory"
	"github.com/ybbench/ybbench/infra/local"
	"github.com/ybbench/ybbench/internal/exitcode"
)

// fakeTerraform is a stand-in terraform that answers `version -json`
// with the version given (and nothing else).
func fakeTerraform(t *testing.T, version string) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "terraform")
	script := "#!/bin/sh\n[ \"$1\" = version ] || exit 1\n" +
		`echo '{"terraform_version":"` + version + `","platform":"linux_amd64","provider_selections":{},"terraform_outdated":false}'` + "\n"
	if err := os.WriteFile(bin, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return bin
}

// checkDeps makes the real providers, the local one with the Terraform
// given.
func checkDeps(terraformBin string) Deps {
	return Deps{Provider: func(s *Spec, _ string) (infra.Provider, error) {
		if s.Provider == local.ProviderName {
			return local.New(local.TerraformBinary(terraformBin)), nil
		}
		return inventory.New(s.Inventory), nil
	}}
}

// loadCheck loads a command line and checks it as run, up and plan do.
func loadCheck(t *testing.T, cl CommandLine, deps Deps, o CheckOptions) error {
	t.Helper()
	s, _ := Load(cl)
	return s.Check(context.Background(), deps, o)
}

// A local cluster's subnet and Terraform are checked before a run is
// created, each problem naming where its value came from.
func TestCheckLocalCluster(t *testing.T) {
	good, old := fakeTerraform(t, "1.5.7"), fakeTerraform(t, "1.4.7")
	for _, c := range []struct {
		name  string
		flags map[string]string
		tf    string
		want  []string
	}{
		{"fine", map[string]string{"provider": "local"}, good, nil},
		{"prefix 33", map[string]string{"provider": "local", "subnet": "10.0.0.0/33"}, good, []string{`--subnet: subnet "10.0.0.0/33": want an IPv4 CIDR`}},
		{"host bits", map[string]string{"provider": "local", "subnet": "10.213.0.1/24"}, good, []string{"did you mean 10.213.0.0/24"}},
		{"loopback", map[string]string{"provider": "local", "subnet": "127.0.0.0/24"}, good, []string{"not usable for hosts"}},
		{"too small", map[string]string{"provider": "local", "subnet": "10.213.0.0/30"}, good, []string{"room for 1 hosts, not 4"}},
		{"old terraform", map[string]string{"provider": "local"}, old, []string{"is version 1.4.7; ybbench needs 1.5.0 or later"}},
		{"no terraform", map[string]string{"provider": "local"}, filepath.Join(t.TempDir(), "terraform"), []string{"terraform not found at"}},
		{"both", map[string]string{"provider": "local", "subnet": "10.0.0.0/33"}, old, []string{"--subnet:", "is version 1.4.7"}},
		// Create refuses an option it does not know: so does the check.
		{"an inventory's option", map[string]string{"provider": "local", "accept_new_host_keys": "true"}, good,
			[]string{`--accept-new-host-keys: unknown option "accept_new_host_keys"`}},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := loadCheck(t, CommandLine{Flags: c.flags}, checkDeps(c.tf), CheckOptions{})
			if len(c.want) == 0 {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if exitcode.Of(err) != exitcode.Config {
				t.Fatalf("exit %d: %v", exitcode.Of(err), err)
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error lacks %q:\n%v", w, err)
				}
			}
			if n := strings.Count(err.Error(), "\n") + 1; n != len(c.want) {
				t.Errorf("%d lines, want one per problem (%d):\n%v", n, len(c.want), err)
			}
		})
	}
	// The variable is named when the subnet came from one.
	env := map[string]string{"YBBENCH_SUBNET": "10.0.0.0/33"}
	err := loadCheck(t, CommandLine{Getenv: func(k string) string { return env[k] }, Flags: map[string]string{"provider": "local"}}, checkDeps(good), CheckOptions{})
	if err == nil || !strings.HasPrefix(err.Error(), "YBBENCH_SUBNET: ") {
		t.Errorf("subnet from the environment: %v", err)
	}
}

// An inventory is read whole, host keys included, before a run is made.
func TestCheckInventory(t *testing.T) {
	dir := t.TempDir()
	key := filepath.Join(dir, "id")
	if err := os.WriteFile(key, []byte("k"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("HOME", dir) // no ~/.ssh/known_hosts of the machine's
	inv := filepath.Join(dir, "hosts.yaml")
	write := func(text string) {
		if err := os.WriteFile(inv, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("hosts:\n  - {name: db1, address: 10.0.0.1}\n")
	err := loadCheck(t, CommandLine{Flags: map[string]string{"inventory": inv}}, checkDeps(""), CheckOptions{MakesHosts: true})
	for _, w := range []string{inv + ":2: hosts[0].roles: a host needs a role", "no host has the client role"} {
		if err == nil || !strings.Contains(err.Error(), w) {
			t.Errorf("error lacks %q: %v", w, err)
		}
	}
	write("defaults: {ssh: {key: " + key + "}}\nhosts:\n  - {name: db1, roles: [db], address: 10.0.0.1}\n  - {name: c1, roles: [client], address: 10.0.0.2}\n")
	err = loadCheck(t, CommandLine{Flags: map[string]string{"inventory": inv}}, checkDeps(""), CheckOptions{MakesHosts: true})
	if err == nil || !strings.Contains(err.Error(), "db1") || !strings.Contains(err.Error(), "ssh-keyscan") {
		t.Errorf("unknown host keys: %v", err)
	}
	if err := loadCheck(t, CommandLine{Flags: map[string]string{"inventory": inv, "accept_new_host_keys": "true"}}, checkDeps(""), CheckOptions{MakesHosts: true}); err != nil {
		t.Errorf("accepting new host keys: %v", err)
	}
}

// A tarball is checked where the flavor installs from one: a file of the
// sha256 given, a URL that answers; a URL's secrets are never shown.
func TestCheckTarball(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "yugabyte-2.20.1.3-linux-x86_64.tar.gz")
	if err := os.WriteFile(file, []byte("not really a tarball"), 0o644); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256([]byte("not really a tarball"))
	good := hex.EncodeToString(sum[:])
	dirTarball := filepath.Join(dir, "d.tar.gz")
	if err := os.Mkdir(dirTarball, 0o755); err != nil {
		t.Fatal(err)
	}
	headless := func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodHead {
			w.WriteHeader(http.StatusForbidden) // a URL signed for GET alone
			return
		}
		if r.Header.Get("Range") != "bytes=0-0" {
			t.Errorf("the GET asks for %q, want the first byte", r.Header.Get("Range"))
		}
		w.WriteHeader(http.StatusPartialContent)
		w.Write([]byte("x"))
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/ok/yb.tar.gz":
		case "/headless/yb.tar.gz":
			headless(w, r)
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	secret := func(p string) string {
		return strings.Replace(srv.URL, "http://", "http://me:PASSWORD1@", 1) + p + "?token=TOKEN2"
	}
	for _, c := range []struct {
		name, tarball, sha, want string
	}{
		{"file", file, "", ""},
		{"file of the sha256 given", file, good, ""},
		{"file of another sha256", file, strings.Repeat("0", 64), "--yb-tarball: " + file + " has sha256 " + good + ", not the " + strings.Repeat("0", 64) + " given by --yb-sha256"},
		{"no such file", filepath.Join(dir, "nope.tar.gz"), "", "--yb-tarball: open " + filepath.Join(dir, "nope.tar.gz") + ": no such file"},
		{"a directory", dirTarball, "", dirTarball + " is not a regular file"},
		{"not a tarball", filepath.Join(dir, "yb.zip"), "", "--yb-tarball: " + filepath.Join(dir, "yb.zip") + " is not a .tar.gz release tarball"},
		{"URL", secret("/ok/yb.tar.gz"), good, ""},
		{"URL refusing HEAD", secret("/headless/yb.tar.gz"), good, ""},
		{"URL not there", secret("/gone/yb.tar.gz"), good, "--yb-tarball: http://REDACTED@" + strings.TrimPrefix(srv.URL, "http://") + "/gone/yb.tar.gz?REDACTED: the server answers 404 Not Found"},
		{"nothing listening", "https://me:PASSWORD1@127.0.0.1:1/yb.tar.gz?token=TOKEN2", "", "does not answer"},
		{"other scheme", "ftp://host/yb.tar.gz", "", "only http and https URLs"},
	} {
		t.Run(c.name, func(t *testing.T) {
			flags := map[string]string{"provider": "local", "yb_tarball": c.tarball}
			if c.sha != "" {
				flags["yb_sha256"] = c.sha
			}
			s, _ := Load(CommandLine{Flags: flags})
			errs := s.checkTarball(context.Background(), srv.Client())
			var got string
			for _, e := range errs {
				got += e.Error() + "\n"
			}
			if c.want == "" && len(errs) > 0 || c.want != "" && !strings.Contains(got, c.want) {
				t.Errorf("errors %q, want %q", got, c.want)
			}
			if strings.Contains(got, "PASSWORD1") || strings.Contains(got, "TOKEN2") {
				t.Errorf("a URL's secret is shown: %s", got)
			}
		})
	}
	// Not checked where the flavor takes no tarball.
	s, _ := Load(CommandLine{Flags: map[string]string{"flavor": "postgres", "yb_tarball": filepath.Join(dir, "nope.tar.gz")}})
	if errs := s.checkTarball(context.Background(), nil); len(errs) > 0 {
		t.Errorf("postgres with a tarball: %v", errs)
	}
}

// The agent named must be an executable file.
func TestCheckAgent(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct{ agent, want string }{
		{filepath.Join(dir, "nope"), "--agent: stat " + filepath.Join(dir, "nope")},
		{dir, "--agent: " + dir + " is not an executable file"},
	} {
		s, _ := Load(CommandLine{Flags: map[string]string{"agent": c.agent}})
		errs := s.checkAgent(false)
		if len(errs) != 1 || !strings.Contains(errs[0].Error(), c.want) {
			t.Errorf("agent %s: %v, want %q", c.agent, errs, c.want)
		}
	}
}

// Making a local cluster needs root: run and up say so before a run is
// created; plan, which makes nothing, does not ask.
func TestCheckRoot(t *testing.T) {
	defer func(f func() int) { geteuid = f }(geteuid)
	geteuid = func() int { return 1000 }
	deps := checkDeps(fakeTerraform(t, "1.5.7"))
	cl := CommandLine{Presets: []string{"local"}}
	err := loadCheck(t, cl, deps, CheckOptions{MakesHosts: true})
	if exitcode.Of(err) != exitcode.Config || !strings.Contains(err.Error(), "--local (provider=local): the local provider needs root") {
		t.Errorf("not root, making hosts: exit %d: %v", exitcode.Of(err), err)
	}
	if err := loadCheck(t, cl, deps, CheckOptions{}); err != nil {
		t.Errorf("not root, planning: %v", err)
	}
	geteuid = func() int { return 0 }
	if err := loadCheck(t, cl, deps, CheckOptions{MakesHosts: true}); err != nil {
		t.Errorf("root: %v", err)
	}
}
