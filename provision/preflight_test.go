package provision

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/ybbench/ybbench/infra"
)

func TestParseDate(t *testing.T) {
	for in, want := range map[string]time.Time{
		"1767225600.123456789\n": time.Unix(1767225600, 123456789),
		"1767225600.5":           time.Unix(1767225600, 500000000),
		"0.000000001":            time.Unix(0, 1),
	} {
		got, err := parseDate(in)
		if err != nil || !got.Equal(want) {
			t.Fatalf("parseDate(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, bad := range []string{"1767225600.%N", "1767225600", "Tue Jan 6", "1767225600.1234567891", "x.1", ""} {
		if _, err := parseDate(bad); err == nil || !strings.Contains(err.Error(), "GNU date") {
			t.Fatalf("parseDate(%q) = %v", bad, err)
		}
	}
}

func TestParseFacts(t *testing.T) {
	var c Check
	out := "kernel\t6.1.0-9-amd64\narch\tx86_64\ncpus\t16\nmem_kb\t32768000\nos\tDebian GNU/Linux 12 (bookworm)\n" +
		"nofile\t1024\nnproc\tunlimited\ndisk\t2048\t/srv\t/srv/ybbench/data\n"
	if err := parseFacts([]byte(out), &c, 5000); err != nil {
		t.Fatal(err)
	}
	if want := (SystemFacts{Kernel: "6.1.0-9-amd64", Arch: "x86_64", CPUs: 16, MemKB: 32768000, OS: "Debian GNU/Linux 12 (bookworm)"}); c.System != want {
		t.Fatalf("system %+v, want %+v", c.System, want)
	}
	if c.NoFile != 1024 || c.NProc != -1 || len(c.Disks) != 1 {
		t.Fatalf("%+v", c)
	}
	if d := c.Disks[0]; d.Path != "/srv/ybbench/data" || d.Checked != "/srv" || d.FreeBytes != 2048*1024 || d.MinFreeBytes != 5000 {
		t.Fatalf("%+v", d)
	}
	for _, bad := range []string{"nofile\tmany\n", "disk\tunknown\t/\t/x\n", "motd banner\n", "cpus\tsome\n", "mem_kb\t\n"} {
		if err := parseFacts([]byte(bad), &Check{}, 1); err == nil {
			t.Fatalf("parseFacts(%q) accepted", bad)
		}
	}
}

func TestPreflightPaths(t *testing.T) {
	got := preflightPaths(infra.Host{Base: "/b"})
	if strings.Join(got, ",") != "/b,/b/data" {
		t.Fatalf("%v", got)
	}
	got = preflightPaths(infra.Host{Base: "/b", DataDirs: []string{"/d1", "/d2", "/d1"}})
	if strings.Join(got, ",") != "/b,/d1,/d2" {
		t.Fatalf("%v", got)
	}
	if got := preflightPaths(infra.Host{}); len(got) != 0 {
		t.Fatalf("%v", got)
	}
}

// TestFactsScriptInBash runs the rendered script with the local bash: a
// path that does not exist yet is measured at its nearest ancestor, and a
// path with a quote survives the quoting.
func TestFactsScriptInBash(t *testing.T) {
	dir := t.TempDir()
	paths := []string{filepath.Join(dir, "not", "yet"), filepath.Join(dir, "it's")}
	out, err := exec.Command("bash", "-c", factsScript(paths, nil)).Output()
	if err != nil {
		t.Fatal(err)
	}
	var c Check
	if err := parseFacts(out, &c, 1); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if len(c.Disks) != 2 || c.Disks[0].Checked != dir || c.Disks[1].Path != paths[1] || c.Disks[0].FreeBytes <= 0 || c.NoFile == 0 || c.NProc == 0 {
		t.Fatalf("%+v\n%s", c, out)
	}
	// The system facts, against this machine's own answers.
	rel, err := os.ReadFile("/proc/sys/kernel/osrelease")
	if err != nil {
		t.Fatal(err)
	}
	arch := map[string]string{"amd64": "x86_64", "arm64": "aarch64"}[runtime.GOARCH]
	if c.System.Kernel != strings.TrimSpace(string(rel)) || (arch != "" && c.System.Arch != arch) ||
		c.System.CPUs < 1 || c.System.CPUs > runtime.NumCPU() || c.System.MemKB <= 0 {
		t.Fatalf("system facts %+v, kernel %s, GOARCH %s\n%s", c.System, rel, runtime.GOARCH, out)
	}
}

func TestCheckFacts(t *testing.T) {
	c := Check{Host: "db1", Reachable: true, NoFile: -1, NProc: 4096, ClockMeasured: true,
		ClockSkew: -1500 * time.Microsecond, ClockUncertainty: 250 * time.Microsecond, MaxClockSkew: 250 * time.Millisecond,
		Disks: []DiskCheck{{Path: "/b", FreeBytes: 42}}, Warnings: []string{"w1", "w2"},
		System: SystemFacts{Kernel: "6.1.0", Arch: "aarch64", CPUs: 4, MemKB: 1024, OS: "Debian"}}
	f := PreflightFacts([]Check{c})["db1"]
	want := map[string]string{"reachable": "true", "kernel": "6.1.0", "arch": "aarch64", "cpus": "4", "mem_kb": "1024", "os": "Debian", "clock_skew_ms": "-1.500", "clock_uncertainty_ms": "0.250", "max_clock_skew_ms": "250.000",
		"ulimit_nofile": "unlimited", "ulimit_nproc": "4096", "free_bytes:/b": "42", "warnings": "w1; w2"}
	if len(f) != len(want) {
		t.Fatalf("facts %v", f)
	}
	for k, v := range want {
		if f[k] != v {
			t.Fatalf("%s = %q, want %q (all: %v)", k, f[k], v, f)
		}
	}
	if f := (Check{Host: "x"}).Facts(); len(f) != 1 || f["reachable"] != "false" {
		t.Fatalf("unreachable: %v", f)
	}
}
