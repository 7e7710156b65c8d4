package main

import (
	"encoding/json"
	"fmt"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// machineSubnet is a /24 this machine's routes already cover (its own
// network), for a --subnet that must be refused.
func machineSubnet(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("ip", "-j", "-4", "route", "show", "table", "all").Output()
	if err != nil {
		t.Fatalf("ip route: %v", err)
	}
	var routes []struct{ Dst string }
	if err := json.Unmarshal(out, &routes); err != nil {
		t.Fatal(err)
	}
	for _, r := range routes {
		dst := r.Dst
		if !strings.Contains(dst, "/") {
			dst += "/32"
		}
		p, err := netip.ParsePrefix(dst)
		if err != nil || !p.Addr().Is4() || p.Addr().IsLoopback() || p.Addr().IsLinkLocalUnicast() || p.Addr().IsMulticast() || p.Addr().As4()[0] == 0 {
			continue
		}
		if s, err := p.Addr().Prefix(24); err == nil {
			return s.String()
		}
	}
	t.Fatalf("this machine has no IPv4 route to overlap: %s", out)
	return ""
}

// freeSubnet is a /24 of 10.213.0.0/16 that none of this machine's routes
// overlaps now (another run's hosts may hold the default one).
func freeSubnet(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("ip", "-j", "-4", "route", "show", "table", "all").Output()
	if err != nil {
		t.Fatalf("ip route: %v", err)
	}
	var routes []struct{ Dst string }
	if err := json.Unmarshal(out, &routes); err != nil {
		t.Fatal(err)
	}
	for third := 254; third > 0; third-- {
		s := netip.MustParsePrefix(fmt.Sprintf("10.213.%d.0/24", third))
		taken := false
		for _, r := range routes {
			dst := r.Dst
			if !strings.Contains(dst, "/") {
				dst += "/32"
			}
			if p, err := netip.ParsePrefix(dst); err == nil && p.Overlaps(s) {
				taken = true
				break
			}
		}
		if !taken {
			return s.String()
		}
	}
	t.Fatal("every /24 of 10.213.0.0/16 is on this machine's routes")
	return ""
}

// A setting the hosts cannot take is refused before anything exists, by
// plan and up alike, naming the setting (exit 2): a runs directory whose
// path a configuration file or script cannot carry, and a subnet on this
// machine's routes. The controls: a plain runs directory and a free
// subnet plan (exit 0).
func TestRefusedBeforeTheRunExists(t *testing.T) {
	t.Setenv("YBBENCH_TERRAFORM", versionOnly(t, "1.5.7")) // --local checks it
	base := t.TempDir()
	for _, bad := range []string{`it's`, `a"b`, `$HOME`, `sp ace`, `a<b`, `x&y`, `%h`} {
		runs := filepath.Join(base, bad, "runs")
		for _, cmd := range []string{"plan", "up"} {
			code, out := ybbenchIn(t, cmd, "--local", "--quick", "--runs-dir", runs)
			if code != 2 || !strings.Contains(out, "--runs-dir: ") || !strings.Contains(out, "configuration files and scripts") {
				t.Errorf("%s --runs-dir %q: exit %d, want 2 naming --runs-dir:\n%s", cmd, runs, code, out)
			}
		}
		if _, err := os.Stat(filepath.Join(base, bad)); !os.IsNotExist(err) {
			t.Errorf("--runs-dir %q: something was made (%v)", runs, err)
		}
	}
	subnet := machineSubnet(t)
	for _, cmd := range []string{"plan", "up"} {
		runs := filepath.Join(base, "subnet-"+cmd)
		code, out := ybbenchIn(t, cmd, "--local", "--quick", "--runs-dir", runs, "--subnet", subnet)
		if code != 2 || !strings.Contains(out, "--subnet") || !strings.Contains(out, "subnet "+subnet+" overlaps routes of this machine") {
			t.Errorf("%s --subnet %s: exit %d, want 2 naming --subnet and the routes:\n%s", cmd, subnet, code, out)
		}
		if _, err := os.Stat(runs); !os.IsNotExist(err) {
			t.Errorf("%s --subnet %s: the runs directory was made (%v)", cmd, subnet, err)
		}
	}
	free := freeSubnet(t)
	if code, out := ybbenchIn(t, "plan", "--local", "--quick", "--runs-dir", filepath.Join(base, "plain_runs-1.x"), "--subnet", free); code != 0 {
		t.Errorf("plan with a plain runs directory and a free subnet (%s): exit %d:\n%s", free, code, out)
	}
}

// A gated run refused before it begins still writes --junit's report: the
// refusal an errored test case (validate) with exit 2, the gates skipped;
// with a gate file that is itself refused, the refusal alone.
func TestRefusedGatedRunWritesJUnit(t *testing.T) {
	t.Setenv("YBBENCH_TERRAFORM", versionOnly(t, "1.5.7"))
	dir := t.TempDir()
	gates := filepath.Join(dir, "gates.yaml")
	if err := os.WriteFile(gates, []byte("gates:\n  - {workload: \"*\", metric: throughput, op: \">=\", value: 1}\n  - {workload: workloada, metric: error_rate, op: \"<=\", value: 0}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	broken := filepath.Join(dir, "broken.yaml")
	if err := os.WriteFile(broken, []byte("gates:\n  - {workload: workloada, metric: colour, op: \">=\", value: 1}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, gate string
		want       []string
	}{
		{"bad setting", gates, []string{`tests="3"`, `errors="1"`, `skipped="2"`, `name="validate"`, "exit 2: ", "--runs-dir", "not judged: the run failed at validate (exit 2)"}},
		{"bad gate file", broken, []string{`tests="1"`, `errors="1"`, `skipped="0"`, `name="validate"`, "colour"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			junit := filepath.Join(t.TempDir(), "reports", "junit.xml")
			code, out := ybbenchIn(t, "run", "--local", "--quick", "--runs-dir", filepath.Join(dir, "a$b"), "--gate", c.gate, "--junit", junit)
			if code != 2 {
				t.Fatalf("exit %d, want 2:\n%s", code, out)
			}
			b, err := os.ReadFile(junit)
			if err != nil {
				t.Fatalf("no --junit report: %v\n%s", err, out)
			}
			for _, w := range c.want {
				if !strings.Contains(string(b), w) {
					t.Errorf("junit.xml lacks %q:\n%s", w, b)
				}
			}
		})
	}
}
