package pipeline

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/ybbench/ybbench/infra"
	"github.com/ybbench/ybbench/internal/exitcode"
)

// checkIP is a stand-in for the public address service: an HTTPS server
// answering every GET with body (and status), counting what it is asked.
func checkIP(t *testing.T, status int, body string) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var asked atomic.Int32
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked.Add(1)
		if r.Method != http.MethodGet {
			t.Errorf("the lookup is a %s", r.Method)
		}
		w.WriteHeader(status)
		w.Write([]byte(body))
	}))
	t.Cleanup(srv.Close)
	return srv, &asked
}

// A cloud run given no ssh_cidr gets this machine's public address as a
// /32, looked up when the run is created, before the provider's check
// (which is given it); the spec records the address and where it came
// from. plan looks nothing up and asks the cloud nothing.
func TestSSHCIDRLookedUpWhenARunIsCreated(t *testing.T) {
	srv, asked := checkIP(t, http.StatusOK, "203.0.113.7\n")
	p := &fakeCloud{}
	deps := cloudDeps(p)
	s, err := Load(CommandLine{Flags: map[string]string{"provider": "aws", "region": "us-east-1", "ssh_cidr_lookup_url": srv.URL}})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Check(context.Background(), deps, CheckOptions{HTTP: srv.Client()}); err != nil || asked.Load() != 0 {
		t.Fatalf("plan's check: %v; the lookup was asked %d times", err, asked.Load())
	}
	if _, checked, _ := p.counts(); checked != 0 || s.SSHCIDR != "" {
		t.Fatalf("plan's check asked the cloud %d times; ssh_cidr %q", checked, s.SSHCIDR)
	}
	if err := s.Check(context.Background(), deps, CheckOptions{MakesHosts: true, HTTP: srv.Client()}); err != nil {
		t.Fatal(err)
	}
	if asked.Load() != 1 || s.SSHCIDR != "203.0.113.7/32" || !strings.Contains(s.SSHCIDRSource, "looked up at "+srv.URL) {
		t.Errorf("asked %d times; ssh_cidr %q from %q", asked.Load(), s.SSHCIDR, s.SSHCIDRSource)
	}
	if len(p.checked) != 1 || p.checked[0].Options[infra.OptionSSHCIDR] != "203.0.113.7/32" || p.checked[0].InstanceType != "c5.4xlarge" {
		t.Errorf("the provider checked %+v", p.checked)
	}
	// Given, it is not looked up.
	s, _ = Load(CommandLine{Flags: map[string]string{"provider": "aws", "region": "us-east-1", "ssh_cidr": "198.51.100.0/24", "ssh_cidr_lookup_url": srv.URL}})
	if err := s.Check(context.Background(), deps, CheckOptions{MakesHosts: true, HTTP: srv.Client()}); err != nil || asked.Load() != 1 {
		t.Errorf("ssh_cidr given: %v; the lookup was asked %d times in all", err, asked.Load())
	}
}

// A lookup that fails stops the run before anything asks the cloud,
// saying why and how to give the address; so does bad input, before the
// lookup.
func TestSSHCIDRLookupFails(t *testing.T) {
	unreachable := httptest.NewTLSServer(http.NotFoundHandler())
	unreachable.Close()
	// An https lookup that redirects to plain http.
	plain := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprintln(w, "203.0.113.7") }))
	defer plain.Close()
	redirecting := httptest.NewTLSServer(http.RedirectHandler(plain.URL, http.StatusFound))
	defer redirecting.Close()
	for _, c := range []struct {
		name   string
		status int
		body   string
		url    string
		want   string
	}{
		{"server error", http.StatusServiceUnavailable, "busy", "", "the server answers 503 Service Unavailable"},
		{"not an address", http.StatusOK, "<html>hello</html>", "", `the answer "<html>hello</html>" is not an IPv4 address`},
		{"two addresses", http.StatusOK, "203.0.113.7\n203.0.113.8\n", "", "is not an IPv4 address"},
		{"IPv6", http.StatusOK, "2001:db8::1", "", `the answer "2001:db8::1" is not an IPv4 address`},
		{"loopback", http.StatusOK, "127.0.0.1", "", "127.0.0.1 is no address the internet sees this machine by"},
		{"nothing listening", 0, "", unreachable.URL, "connection refused"},
		{"redirected to http", 0, "", redirecting.URL, "it redirects to " + plain.URL + ", which is not https"},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv, _ := checkIP(t, c.status, c.body)
			u := srv.URL
			if c.url != "" {
				u = c.url
			}
			p := &fakeCloud{}
			s, _ := Load(CommandLine{Flags: map[string]string{"provider": "aws", "region": "us-east-1", "ssh_cidr_lookup_url": u}})
			err := s.Check(context.Background(), cloudDeps(p), CheckOptions{MakesHosts: true, HTTP: srv.Client()})
			if exitcode.Of(err) != exitcode.Config {
				t.Fatalf("exit %d: %v", exitcode.Of(err), err)
			}
			for _, w := range []string{"ssh_cidr: not given, and this machine's public address could not be looked up at " + u, c.want, "--ssh-cidr 203.0.113.7/32", "YBBENCH_SSH_CIDR"} {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error lacks %q:\n%v", w, err)
				}
			}
			if _, checked, _ := p.counts(); checked != 0 || s.SSHCIDR != "" {
				t.Errorf("after a failed lookup the cloud was asked %d times; ssh_cidr %q", checked, s.SSHCIDR)
			}
		})
	}
	// Refused settings (max_cost below the bound) ask neither the lookup
	// nor the cloud; nor does a command line refused elsewhere.
	srv, asked := checkIP(t, http.StatusOK, "203.0.113.7")
	p := &fakeCloud{}
	s, _ := Load(CommandLine{Flags: map[string]string{"provider": "aws", "region": "us-east-1", "max_cost": "1", "ssh_cidr_lookup_url": srv.URL}})
	s.Check(context.Background(), cloudDeps(p), CheckOptions{MakesHosts: true, HTTP: srv.Client()})
	s, _ = Load(CommandLine{Flags: map[string]string{"provider": "aws", "region": "us-east-1", "ssh_cidr_lookup_url": srv.URL}})
	s.Check(context.Background(), cloudDeps(p), CheckOptions{MakesHosts: true, HTTP: srv.Client(), Refused: true})
	if _, checked, _ := p.counts(); checked != 0 || asked.Load() != 0 {
		t.Errorf("refused settings: the cloud was asked %d times, the lookup %d", checked, asked.Load())
	}
}

// The looked-up address is the run's: run.json records it and where it
// came from, and the run reopened from run.json (resume) makes its hosts
// with it, looking nothing up again.
func TestLookedUpAddressIsRecorded(t *testing.T) {
	srv, asked := checkIP(t, http.StatusOK, "203.0.113.9")
	p := &fakeCloud{}
	deps := cloudDeps(p)
	deps.Progress = NewLines(discard{})
	deps.NewKey = func(dir string) (string, string, error) { return "ssh-ed25519 AAAAtest run", dir + "/id_ed25519", nil }
	_, r, err := resolveFlags(t, deps.Registry, map[string]string{"provider": "aws", "region": "us-east-1", "ssh_cidr_lookup_url": srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Spec.Check(context.Background(), deps, CheckOptions{MakesHosts: true, HTTP: srv.Client()}); err != nil {
		t.Fatal(err)
	}
	run, err := New(r, deps)
	if err != nil {
		t.Fatal(err)
	}
	dir := run.Dir()
	run.Close()
	b, err := os.ReadFile(filepath.Join(dir, "run.json"))
	if err != nil {
		t.Fatal(err)
	}
	var rec struct {
		Spec map[string]any `json:"spec"`
	}
	if err := json.Unmarshal(b, &rec); err != nil {
		t.Fatal(err)
	}
	if rec.Spec["ssh_cidr"] != "203.0.113.9/32" || !strings.Contains(fmt.Sprint(rec.Spec["ssh_cidr_source"]), "looked up at "+srv.URL) {
		t.Errorf("run.json's spec: ssh_cidr %v, source %v", rec.Spec["ssh_cidr"], rec.Spec["ssh_cidr_source"])
	}
	again, err := Open(dir, deps)
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	if err := again.Up(context.Background()); err != nil {
		t.Fatal(err)
	}
	if asked.Load() != 1 || len(p.created) != 1 || p.created[0].Options[infra.OptionSSHCIDR] != "203.0.113.9/32" {
		t.Errorf("looked up %d times; created with %v", asked.Load(), p.created)
	}
}
