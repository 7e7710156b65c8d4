package infra

import (
	"os/exec"
	"strings"
	"testing"
)

func TestCheckHostDir(t *testing.T) {
	for _, c := range []struct {
		dir, want string // want: a fragment of the complaint, "" for none
	}{
		{DefaultBase, ""}, // /opt/ybbench
		{"/data/d0", ""},
		{"/var/lib/ybbench", ""},
		{"/home/alice/bench", ""},
		{"/tmp/x", ""},
		{"/library", "system tree /library"}, // /lib* is every lib tree, as the issue asks
		{"/", "system directory"},
		{"/usr/local", "system tree /usr"},
		{"/usr", "system tree /usr"},
		{"/etc/ybbench", "system tree /etc"},
		{"/lib64/x", "system tree /lib64"},
		{"/var/lib", "system directory"},
		{"/var", "system directory"},
		{"/opt", "system directory"},
		{"/home", "system directory"},
		{"/root", "system directory"},
		{"/tmp", "system directory"},
		{"/mnt", "system directory"},
		{"/media", "system directory"},
		{"/srv", "system directory"},
		{"/proc/1", "system tree /proc"},
		{"relative/dir", "not an absolute path"},
		{"/opt//x", "not clean"},
		{"/opt/x/", "not clean"},
		{"/opt/a b", "letters, digits"},
		{"/opt/a,b", "letters, digits"},
		{"", "empty"},
	} {
		got := CheckHostDir(c.dir)
		if (c.want == "") != (got == "") || !strings.Contains(got, c.want) {
			t.Errorf("CheckHostDir(%q) = %q, want %q", c.dir, got, c.want)
		}
	}
}

// TestSystemPathPatternsAgreeWithGo runs the shell case patterns through
// bash for the same paths and checks they refuse exactly what SystemPath
// refuses, so the host's check and the orchestrator's cannot drift.
func TestSystemPathPatternsAgreeWithGo(t *testing.T) {
	paths := []string{"/", "/bin", "/bin/x", "/binx", "/boot/efi", "/dev/shm", "/etc", "/lib", "/lib64", "/libx32/a",
		"/proc", "/run/user/0", "/sbin", "/sys/fs", "/usr", "/usr/local/bin", "/home", "/home/a", "/root", "/root/x",
		"/var", "/var/lib", "/var/lib/x", "/var/tmp", "/opt", "/opt/y", "/srv", "/srv/d", "/tmp", "/tmp/t", "/mnt", "/mnt/d0", "/media", "/media/u", "/data"}
	script := "for p in \"$@\"; do case $p in " + SystemPathPatterns() + ") echo refused ;; *) echo ok ;; esac; done"
	out, err := exec.Command("bash", append([]string{"-c", script, "bash"}, paths...)...).Output()
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Fields(string(out))
	for i, p := range paths {
		want := "ok"
		if SystemPath(p) != "" {
			want = "refused"
		}
		if got[i] != want {
			t.Errorf("%s: shell says %s, Go says %s", p, got[i], want)
		}
	}
}
