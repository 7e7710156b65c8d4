package provision

import (
	"strings"
	"testing"
	"time"

	"github.com/ybbench/ybbench/infra"
	"github.com/ybbench/ybbench/infra/cloudinit"
	"github.com/ybbench/ybbench/internal/golden"
)

func TestCloudHost(t *testing.T) {
	for cloud, want := range map[string]bool{"aws": true, "gcp": true, "local": false, "onprem": false, "": false, "AWS": false} {
		if got := cloudHost(infra.Host{Cloud: cloud}); got != want {
			t.Errorf("cloudHost(Cloud %q) = %v, want %v", cloud, got, want)
		}
	}
}

func TestCloudInitScript(t *testing.T) {
	s := cloudInitScript(DefaultCloudInitWait)
	golden.BashSyntax(t, "cloud-init", s)
	golden.Check(t, "preflight-cloud-init.sh", []byte(s))
	// The bound is whole seconds, at least one.
	if s := cloudInitScript(1500 * time.Millisecond); !strings.Contains(s, "timeout -k 10 1 cloud-init status --wait --long") {
		t.Errorf("1.5 s bound:\n%s", s)
	}
	if s := cloudInitScript(0); !strings.Contains(s, "timeout -k 10 1 cloud-init") {
		t.Errorf("zero bound:\n%s", s)
	}
}

// TestFactsScriptGolden pins the facts script of a host without and with
// the mount lines of a cloud host's data directories.
func TestFactsScriptGolden(t *testing.T) {
	paths := []string{"/opt/ybbench", "/mnt/d0/ybbench", "/mnt/d1/it's"}
	for name, s := range map[string]string{
		"preflight-facts.sh":       factsScript(paths, nil),
		"preflight-facts-cloud.sh": factsScript(paths, paths[1:]),
	} {
		golden.BashSyntax(t, name, s)
		golden.Check(t, name, []byte(s))
	}
}

// The long status below is laid out as cloud-init's cmd/status.py prints
// it (TABULAR_LONG_TMPL: errors as tab-indented "- " items, recoverable
// errors under their level), after the progress dots of --wait; the old
// one as releases before 23.4 print it (time:, the detail on the next line).
const (
	statusDone = "....\nstatus: done\nextended_status: done\nboot_status_code: enabled-by-generator\n" +
		"last_update: Thu, 01 Jan 1970 00:01:41 +0000\ndetail: DataSourceEc2Local\nerrors: []\nrecoverable_errors: {}\n"
	statusDegraded = "..\nstatus: done\nextended_status: degraded done\nboot_status_code: enabled-by-generator\n" +
		"detail: DataSourceGCELocal\nerrors: []\nrecoverable_errors:\nWARNING:\n\t- Failed at merging in cloud config part from part-002\n"
	statusError = ".....\nstatus: error\nextended_status: error - done\nboot_status_code: enabled-by-generator\n" +
		"last_update: Thu, 01 Jan 1970 00:02:10 +0000\ndetail: DataSourceEc2Local\nerrors:\n" +
		"\t- ('scripts_user', RuntimeError('Runparts: 1 failures (part-001) in 1 attempted commands'))\nrecoverable_errors: {}\n"
	statusOld = "\nstatus: error\ntime: Mon, 06 Jan 2025 10:00:00 +0000\ndetail:\n('scripts-user', ProcessExecutionError('Unexpected error while running command.'))\n"
)

func TestParseCloudInit(t *testing.T) {
	for _, c := range []struct {
		name, out string
		want      CloudInitCheck
		warn, bad string // "" when none
	}{
		{"done", statusDone + "\nybbench-cloud-init\texit\t0\n",
			CloudInitCheck{Installed: true, Status: "done", Lines: []string{"status: done", "extended_status: done", "detail: DataSourceEc2Local"}}, "", ""},
		{"recoverable", statusDegraded + "\nybbench-cloud-init\texit\t2\n",
			CloudInitCheck{Installed: true, Exit: 2, Status: "done", Lines: []string{"status: done", "extended_status: degraded done", "detail: DataSourceGCELocal",
				"recoverable_errors:", "WARNING:", "- Failed at merging in cloud config part from part-002"}},
			"cloud-init on db1 finished with recoverable errors: status: done; extended_status: degraded done; detail: DataSourceGCELocal; recoverable_errors:; WARNING:; - Failed at merging in cloud config part from part-002", ""},
		{"failed", statusError + "\nybbench-cloud-init\texit\t1\n",
			CloudInitCheck{Installed: true, Exit: 1, Status: "error", Lines: []string{"status: error", "extended_status: error - done", "detail: DataSourceEc2Local",
				"errors:", "- ('scripts_user', RuntimeError('Runparts: 1 failures (part-001) in 1 attempted commands'))"}},
			"", "cloud-init on db1 failed: status: error; extended_status: error - done; detail: DataSourceEc2Local; errors:; - ('scripts_user', RuntimeError('Runparts: 1 failures (part-001) in 1 attempted commands')) (its log: /var/log/cloud-init-output.log on the host)"},
		{"failed, before 23.4", statusOld + "\nybbench-cloud-init\texit\t1\n",
			CloudInitCheck{Installed: true, Exit: 1, Status: "error", Lines: []string{"status: error", "detail:", "('scripts-user', ProcessExecutionError('Unexpected error while running command.'))"}},
			"", "('scripts-user', ProcessExecutionError('Unexpected error while running command.'))"},
		{"still running", "..........\nstatus: running\nextended_status: running\nboot_status_code: enabled-by-generator\ndetail: Running in stage: modules-final\nerrors: []\nrecoverable_errors: {}\n\nybbench-cloud-init\texit\t124\n",
			CloudInitCheck{Installed: true, Exit: 124, Status: "running", Lines: []string{"status: running", "extended_status: running", "detail: Running in stage: modules-final"}},
			"", "cloud-init on db1 was still running after 15m0s, the preflight's bound: status: running; extended_status: running; detail: Running in stage: modules-final (its log"},
		{"killed, nothing said", "..........\nybbench-cloud-init\texit\t124\n",
			CloudInitCheck{Installed: true, Exit: 124}, "", "cloud-init on db1 was still running after 15m0s, the preflight's bound (its log"},
		{"disabled", "\nstatus: disabled\nextended_status: disabled\nboot_status_code: disabled-by-marker-file\ndetail: Cloud-init disabled by /etc/cloud/cloud-init.disabled\nerrors: []\nrecoverable_errors: {}\n\nybbench-cloud-init\texit\t0\n",
			CloudInitCheck{Installed: true, Status: "disabled", Lines: []string{"status: disabled", "extended_status: disabled", "detail: Cloud-init disabled by /etc/cloud/cloud-init.disabled"}},
			"", "cloud-init is disabled on db1, so the run's user data (host keys, data disks) did not run: status: disabled"},
		{"cannot run", "timeout: failed to run command 'cloud-init': Permission denied\n\nybbench-cloud-init\texit\t126\n",
			CloudInitCheck{Installed: true, Exit: 126, Lines: []string{"timeout: failed to run command 'cloud-init': Permission denied"}},
			"", "`cloud-init status --wait` on db1 exited 126: timeout: failed to run command 'cloud-init': Permission denied"},
		{"missing", "ybbench-cloud-init\tmissing\n", CloudInitCheck{}, "", "db1 has no cloud-init"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := parseCloudInit([]byte(c.out))
			if err != nil {
				t.Fatal(err)
			}
			if got.Installed != c.want.Installed || got.Exit != c.want.Exit || got.Status != c.want.Status ||
				strings.Join(got.Lines, "\n") != strings.Join(c.want.Lines, "\n") {
				t.Fatalf("got %+v\nwant %+v", got, c.want)
			}
			warn, bad := cloudInitFindings("db1", got, DefaultCloudInitWait)
			for _, x := range []struct {
				kind, want string
				got        []string
			}{{"warning", c.warn, warn}, {"failure", c.bad, bad}} {
				switch {
				case x.want == "" && len(x.got) > 0:
					t.Errorf("unexpected %s %q", x.kind, x.got)
				case x.want != "" && (len(x.got) != 1 || !strings.Contains(x.got[0], x.want)):
					t.Errorf("%ss %q, want one with %q", x.kind, x.got, x.want)
				}
			}
		})
	}
	for _, bad := range []string{"status: done\n", "ybbench-cloud-init\texit\tzero\n", "ybbench-cloud-init\tgone\n", ""} {
		if _, err := parseCloudInit([]byte(bad)); err == nil {
			t.Errorf("parseCloudInit(%q) accepted", bad)
		}
	}
}

// A long status that goes on and on is quoted in part.
func TestStatusKeyLinesBounded(t *testing.T) {
	var b strings.Builder
	b.WriteString("status: error\nerrors:\n")
	for range 50 {
		b.WriteString("\t- " + strings.Repeat("é", 400) + "\n")
	}
	status, lines := statusKeyLines(strings.Split(b.String(), "\n"))
	if status != "error" || len(lines) != maxStatusLines+1 || lines[maxStatusLines] != "…" {
		t.Fatalf("status %q, %d lines, last %q", status, len(lines), lines[len(lines)-1])
	}
	if n := len([]rune(lines[2])); n != maxStatusLineRune+1 {
		t.Fatalf("a long line kept %d runes", n)
	}
}

func TestCloudInitSummary(t *testing.T) {
	for _, c := range []struct {
		ci   CloudInitCheck
		want string
	}{
		{CloudInitCheck{}, "not installed"},
		{CloudInitCheck{Installed: true}, "done"},
		{CloudInitCheck{Installed: true, Exit: 2}, "done with recoverable errors"},
		{CloudInitCheck{Installed: true, Exit: 1}, "failed"},
		{CloudInitCheck{Installed: true, Exit: 124}, "still running"},
		{CloudInitCheck{Installed: true, Exit: 126}, "exit 126"},
	} {
		if got := c.ci.Summary(); got != c.want {
			t.Errorf("%+v: %q, want %q", c.ci, got, c.want)
		}
	}
}

func TestParseMount(t *testing.T) {
	for _, c := range []struct {
		raw  string
		want MountCheck
	}{
		{"/mnt/d0 /dev/nvme1n1 xfs", MountCheck{Path: "/p", Checked: "/c", Target: "/mnt/d0", Source: "/dev/nvme1n1", FSType: "xfs"}},
		// findmnt -r writes unsafe characters as \xHH (a space is \x20).
		{`/mnt/a\x20b one\x5cx tmpfs`, MountCheck{Path: "/p", Checked: "/c", Target: "/mnt/a b", Source: `one\x`, FSType: "tmpfs"}},
		{`/ /dev/vda\x2 ext4`, MountCheck{Path: "/p", Checked: "/c", Target: "/", Source: `/dev/vda\x2`, FSType: "ext4"}},
		{"unknown", MountCheck{Path: "/p", Checked: "/c"}},
		{"/mnt/d0 /dev/x", MountCheck{Path: "/p", Checked: "/c"}},
	} {
		if got := parseMount("/c", "/p", c.raw); got != c.want {
			t.Errorf("parseMount(%q) = %+v, want %+v", c.raw, got, c.want)
		}
	}
	// As parseFacts reads it from the script's output.
	var c Check
	if err := parseFacts([]byte("mount\t/mnt/d0\t/mnt/d0/yb\t/mnt/d0 /dev/nvme2n1 xfs\nmount\t/mnt\t/mnt/d1/yb\tunknown\n"), &c, 1); err != nil {
		t.Fatal(err)
	}
	if len(c.Mounts) != 2 || c.Mounts[0] != (MountCheck{Path: "/mnt/d0/yb", Checked: "/mnt/d0", Target: "/mnt/d0", Source: "/dev/nvme2n1", FSType: "xfs"}) ||
		c.Mounts[1] != (MountCheck{Path: "/mnt/d1/yb", Checked: "/mnt"}) {
		t.Fatalf("mounts %+v", c.Mounts)
	}
}

func TestMountFailures(t *testing.T) {
	on := func(path, target, source string) MountCheck {
		return MountCheck{Path: path, Checked: path, Target: target, Source: source}
	}
	if f := mountFailures("db1", []MountCheck{on("/mnt/d0/yb", "/mnt/d0", "/dev/nvme1n1"), on("/mnt/d1/yb", "/mnt/d1", "/dev/nvme2n1")}); len(f) != 0 {
		t.Fatalf("two disks of their own refused: %q", f)
	}
	// The cloud providers' data directories are the mount points
	// themselves (cloudinit.DataDirs), mounted or not.
	dirs := cloudinit.DataDirs(2)
	if f := mountFailures("db1", []MountCheck{on(dirs[0], dirs[0], "/dev/nvme1n1"), on(dirs[1], dirs[1], "/dev/nvme2n1")}); len(f) != 0 {
		t.Fatalf("the cloud data directories, each its disk's mount point, refused: %q", f)
	}
	if f := mountFailures("db1", []MountCheck{on(dirs[0], dirs[0], "/dev/nvme1n1"), on(dirs[1], "/", "/dev/nvme0n1p1")}); len(f) != 1 || !strings.Contains(f[0], dirs[1]+" on db1 is not on a mount of its own") {
		t.Errorf("a cloud data directory whose disk is not mounted: %q", f)
	}
	for _, c := range []struct {
		name string
		ms   []MountCheck
		want string
	}{
		{"root filesystem", []MountCheck{on("/mnt/d0/yb", "/mnt/d0", "/dev/nvme1n1"), on("/mnt/d1/yb", "/", "/dev/nvme0n1p1")},
			"data directory /mnt/d1/yb on db1 is not on a mount of its own: it is on the root filesystem / (/dev/nvme0n1p1), where a data disk mounted under /mnt/ (/mnt/d0, …) was expected"},
		{"the image's /mnt", []MountCheck{on("/mnt/d0/yb", "/mnt", "/dev/xvdb")}, "/mnt/d0/yb on db1 is not on a mount of its own: it is on /mnt (/dev/xvdb)"},
		{"elsewhere", []MountCheck{on("/data/yb", "/data", "/dev/sdb")}, "/data/yb on db1 is not on a mount of its own: it is on /data (/dev/sdb)"},
		{"a sibling of the mount root", []MountCheck{on("/mnt2/d0/yb", "/mnt2/d0", "/dev/sdb")}, "it is on /mnt2/d0 (/dev/sdb)"},
		{"one disk, two dirs", []MountCheck{on("/mnt/d0/a", "/mnt/d0", "/dev/nvme1n1"), on("/mnt/d0/b", "/mnt/d0", "/dev/nvme1n1")},
			"data directories /mnt/d0/a and /mnt/d0/b on db1 are both on /mnt/d0 (/dev/nvme1n1): each needs a disk of its own"},
		{"unknown", []MountCheck{{Path: "/mnt/d0/yb", Checked: "/mnt/d0"}}, "cannot tell which mount data directory /mnt/d0/yb on db1 is on (findmnt found none for /mnt/d0)"},
	} {
		f := mountFailures("db1", c.ms)
		if len(f) != 1 || !strings.Contains(f[0], c.want) {
			t.Errorf("%s: failures %q, want one with %q", c.name, f, c.want)
		}
	}
}

func TestCheckFactsCloud(t *testing.T) {
	c := Check{Host: "db1", Reachable: true, CloudInit: &CloudInitCheck{Installed: true, Exit: 2},
		Mounts: []MountCheck{{Path: "/mnt/d0/yb", Target: "/mnt/d0", Source: "/dev/nvme1n1", FSType: "xfs"}, {Path: "/mnt/d1/yb", Checked: "/mnt"}}}
	f := c.Facts()
	want := map[string]string{"reachable": "true", "cloud_init": "done with recoverable errors",
		"mount:/mnt/d0/yb": "/mnt/d0", "device:/mnt/d0/yb": "/dev/nvme1n1", "mount:/mnt/d1/yb": "unknown"}
	if len(f) != len(want) {
		t.Fatalf("facts %v, want %v", f, want)
	}
	for k, v := range want {
		if f[k] != v {
			t.Errorf("%s = %q, want %q", k, f[k], v)
		}
	}
}
