package provision

import (
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/ybbench/ybbench/infra"
	"github.com/ybbench/ybbench/infra/cloudinit"
	"github.com/ybbench/ybbench/internal/shellquote"
)

// A cloud host boots from ybbench's own user data (infra/cloudinit):
// cloud-init installs the host keys the run pinned, formats and mounts
// the data disks at /mnt/d0, /mnt/d1, … and arms the power-off at the
// run's expiry. SSH answers before all that is over (cloud.md §8 item 12),
// so the preflight first waits for cloud-init, then demands what the user
// data promised: each data directory on a mount of its own.
//
// Only hosts an aws or gcp provider made are cloud hosts (Host.Cloud
// "aws" or "gcp"). Local hosts ("local") and inventory hosts ("onprem",
// which infra/inventory sets and offers no field to change) are not, and
// cannot opt in: ybbench did not write such a machine's user data, so it
// need not run cloud-init, and its data directories are wherever its
// operator put them, on a mount or not. A cloud VM listed in an inventory
// is such a machine too; it gets the checks every host gets.

// cloudHost reports whether h boots from ybbench's user data.
func cloudHost(h infra.Host) bool {
	return h.Cloud == cloudinit.CloudAWS || h.Cloud == cloudinit.CloudGCP
}

// DefaultCloudInitWait bounds the preflight's wait for cloud-init on a
// cloud host. A first boot is slow on purpose: the disk script gives udev
// up to 60 rounds of `udevadm settle` (at most 5 s) and 2 s of sleep to
// name the disks, about 7 minutes, before mkfs.xfs, which first discards
// the whole disk (1.9 TB of instance store on an i3); cloud-init's own
// stages come on top. A host still booting after 15 minutes is stuck.
const DefaultCloudInitWait = 15 * time.Minute

// cloudInitKillGrace is how long `timeout` waits after its TERM before it
// kills the status command, and cloudInitSlack how much longer than the
// in-script bound the runner waits for the whole script, in case the
// host stops answering.
const (
	cloudInitKillGrace = 10 * time.Second
	cloudInitSlack     = time.Minute
)

// cloudInitMarker starts the script's own result line.
const cloudInitMarker = "ybbench-cloud-init"

// cloudInitScript waits at most wait for cloud-init's boot stages to end
// and prints the long status (the status command's own output, stderr
// included), then its exit code on a line of its own: 0 done, 2 done with
// recoverable errors, 1 failed, 124 still running at the bound
// (timeout(1)), when the long status is read once more without waiting,
// to say which stage it is in. No cloud-init at all is a line of its own.
func cloudInitScript(wait time.Duration) string {
	secs := max(int64(wait/time.Second), 1)
	return `set -u
if ! command -v cloud-init >/dev/null 2>&1; then
  printf '` + cloudInitMarker + `\tmissing\n'
  exit 0
fi
rc=0
timeout -k ` + strconv.FormatInt(int64(cloudInitKillGrace/time.Second), 10) + " " + strconv.FormatInt(secs, 10) + ` cloud-init status --wait --long 2>&1 || rc=$?
if [ "$rc" -eq 124 ]; then
  echo
  timeout 60 cloud-init status --long 2>&1 || true
fi
printf '\n` + cloudInitMarker + `\texit\t%d\n' "$rc"
`
}

// CloudInitCheck is what cloud-init said on a cloud host.
type CloudInitCheck struct {
	// Installed is false when the host has no cloud-init command.
	Installed bool `json:"installed"`
	// Exit is the exit code of `cloud-init status --wait --long`: 0 done,
	// 2 done with recoverable errors (cloud-init 23.4 on; Ubuntu's own
	// builds keep 0), 1 failed, 124 still running when the wait ended.
	Exit int `json:"exit"`
	// Status is the value of its `status:` line (done, error, running…).
	Status string `json:"status,omitempty"`
	// Lines are the long status's key lines, for the messages: status,
	// extended status, detail, and every error and recoverable error.
	Lines []string `json:"lines,omitempty"`
}

// Bounds on what a message quotes of the long status.
const (
	maxStatusLines    = 20
	maxStatusLineRune = 300
)

// parseCloudInit reads cloudInitScript's output. Nothing is decided on
// the status text (the exit code decides); its key lines only go into
// messages, so a format that changes between cloud-init releases can
// only change what a message quotes.
func parseCloudInit(out []byte) (CloudInitCheck, error) {
	var ci CloudInitCheck
	found := false
	var rest []string
	for _, l := range strings.Split(string(out), "\n") {
		v, ok := strings.CutPrefix(l, cloudInitMarker+"\t")
		if !ok {
			rest = append(rest, l)
			continue
		}
		found = true
		if v == "missing" {
			ci = CloudInitCheck{}
			continue
		}
		code, ok := strings.CutPrefix(v, "exit\t")
		n, err := strconv.Atoi(code)
		if !ok || err != nil {
			return ci, fmt.Errorf("the cloud-init check printed %q", l)
		}
		ci.Installed, ci.Exit = true, n
	}
	if !found {
		return ci, fmt.Errorf("the cloud-init check printed no result: %q", strings.TrimSpace(tail(out, 512)))
	}
	ci.Status, ci.Lines = statusKeyLines(rest)
	return ci, nil
}

// statusKeyLines picks the lines worth quoting from `cloud-init status
// --long` (cloud-init's cmd/status.py prints `status:`, then
// `extended_status:`, `boot_status_code:`, `last_update:`, `detail:`,
// `errors:` and `recoverable_errors:`, the errors as indented `- ` items;
// releases before 23.4 print `time:` and the detail on the next lines):
// everything but the progress dots of --wait, blank lines, timestamps,
// the boot status code and empty error lists.
func statusKeyLines(lines []string) (status string, keep []string) {
	for _, l := range lines {
		t := strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(l), "."))
		key, val, _ := strings.Cut(t, ":")
		val = strings.TrimSpace(val)
		switch {
		case t == "", key == "boot_status_code", key == "last_update", key == "time",
			key == "errors" && val == "[]", key == "recoverable_errors" && val == "{}":
			continue
		case key == "status" && status == "":
			status = val
		}
		if len(keep) == maxStatusLines {
			keep = append(keep, "…")
			break
		}
		keep = append(keep, clip(t, maxStatusLineRune))
	}
	return status, keep
}

// clip shortens s to at most n runes, marking the cut.
func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n]) + "…"
}

// cloudInitFindings says what cloud-init's answer means for host: exit 0
// passes, 2 is a warning, anything else (1 failed, 124 still running at
// the bound, no cloud-init at all) fails the host. So does a cloud-init
// that reports itself disabled (exit 0): the run's user data never ran.
func cloudInitFindings(host string, ci CloudInitCheck, wait time.Duration) (warnings, failures []string) {
	said := ""
	if len(ci.Lines) > 0 {
		said = ": " + strings.Join(ci.Lines, "; ")
	}
	switch {
	case !ci.Installed:
		failures = append(failures, fmt.Sprintf("%s has no cloud-init: a cloud host's host keys and data disks are set up by cloud-init from the run's user data (is the image an Ubuntu cloud image?)", host))
	case ci.Exit == 0 && ci.Status == "disabled":
		failures = append(failures, fmt.Sprintf("cloud-init is disabled on %s, so the run's user data (host keys, data disks) did not run%s", host, said))
	case ci.Exit == 0:
	case ci.Exit == 2:
		warnings = append(warnings, fmt.Sprintf("cloud-init on %s finished with recoverable errors%s", host, said))
	case ci.Exit == 1:
		failures = append(failures, fmt.Sprintf("cloud-init on %s failed%s (its log: /var/log/cloud-init-output.log on the host)", host, said))
	case ci.Exit == 124:
		failures = append(failures, fmt.Sprintf("cloud-init on %s was still running after %s, the preflight's bound%s (its log: /var/log/cloud-init-output.log on the host)", host, wait, said))
	default:
		failures = append(failures, fmt.Sprintf("`cloud-init status --wait` on %s exited %d%s", host, ci.Exit, said))
	}
	return warnings, failures
}

// Summary is the ledger's one-word-or-so account of the answer.
func (ci CloudInitCheck) Summary() string {
	switch {
	case !ci.Installed:
		return "not installed"
	case ci.Exit == 0:
		return "done"
	case ci.Exit == 2:
		return "done with recoverable errors"
	case ci.Exit == 1:
		return "failed"
	case ci.Exit == 124:
		return "still running"
	default:
		return "exit " + strconv.Itoa(ci.Exit)
	}
}

// MountCheck is the filesystem one of a cloud host's data directories is
// on, as findmnt(8) reports it: TARGET, SOURCE and FSTYPE of the mount
// holding the directory.
type MountCheck struct {
	Path string `json:"path"`
	// Checked is the path looked up: Path, or its nearest existing
	// ancestor when Path does not exist yet (the run makes it later).
	Checked string `json:"checked"`
	// Target is the mount point ("" when findmnt found none), Source what
	// is mounted there (the device), FSType its filesystem type.
	Target string `json:"target"`
	Source string `json:"source,omitempty"`
	FSType string `json:"fstype,omitempty"`
}

// writeMountsScript appends to b the lines that print, per data
// directory, the mount holding it (or its nearest existing ancestor):
// `mount\t<checked>\t<path>\t<findmnt -r line or "unknown">`. findmnt
// rather than a walk of /proc/self/mountinfo, because it resolves
// symbolic links in the path and finds the longest matching mount point
// itself; util-linux, which has it, is in every cloud image (the disk
// script uses it too). Of stacked mounts on one point it lists each, the
// one on top (the one a path reaches) last.
func writeMountsScript(b *strings.Builder, dirs []string) {
	if len(dirs) == 0 {
		return
	}
	b.WriteString("for p in")
	for _, d := range dirs {
		b.WriteString(" " + shellquote.Quote(d))
	}
	b.WriteString(`; do
  d=$p
  while [ ! -e "$d" ]; do d=$(dirname -- "$d"); done
  m=$(findmnt -n -r -o TARGET,SOURCE,FSTYPE --target "$d" 2>/dev/null | tail -n 1)
  printf 'mount\t%s\t%s\t%s\n' "$d" "$p" "${m:-unknown}"
done
`)
}

// parseMount reads one mount line's fields after "mount": the path
// checked, the data directory and findmnt's raw line, whose fields are
// separated by spaces with unsafe characters written as \xHH.
func parseMount(checked, path, raw string) MountCheck {
	m := MountCheck{Path: path, Checked: checked}
	f := strings.Split(raw, " ")
	if len(f) != 3 || f[0] == "" {
		return m
	}
	m.Target, m.Source, m.FSType = unescapeHex(f[0]), unescapeHex(f[1]), unescapeHex(f[2])
	return m
}

// unescapeHex undoes findmnt's raw-output escaping (\x20 for a space).
func unescapeHex(s string) string {
	if !strings.Contains(s, `\x`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) && s[i+1] == 'x' {
			if v, err := strconv.ParseUint(s[i+2:i+4], 16, 8); err == nil {
				b.WriteByte(byte(v))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// mountFailures says which of a cloud host's data directories are not on
// a mount of their own. A data disk is mounted below cloudinit.MountRoot
// (at /mnt/d0, /mnt/d1, …), so the mount holding a data directory must be
// strictly below it: the root filesystem means the disk was not mounted
// (the disk script's mounts are nofail, so a boot goes on without one),
// and /mnt itself can be the image's own mount of a scratch disk
// (cloud-init's mounts module puts AWS's ephemeral0 there), which is not
// one of the run's disks. Two data directories on one mount also fail:
// the profile's hardware gives each its own disk, and sharing one would
// measure half of it.
func mountFailures(host string, ms []MountCheck) []string {
	var out []string
	first := map[string]string{} // mount point → the first data directory on it
	for _, m := range ms {
		on := m.Target
		if m.Source != "" {
			on += " (" + m.Source + ")"
		}
		switch {
		case m.Target == "":
			out = append(out, fmt.Sprintf("cannot tell which mount data directory %s on %s is on (findmnt found none for %s)", m.Path, host, m.Checked))
		case m.Target == "/" || !strings.HasPrefix(m.Target, cloudinit.MountRoot+"/"):
			what := "on " + on
			if m.Target == "/" {
				what = "on the root filesystem " + on
			}
			out = append(out, fmt.Sprintf("data directory %s on %s is not on a mount of its own: it is %s, where a data disk mounted under %s/ (%s, …) was expected (the disk script's messages: /var/log/cloud-init-output.log on the first boot, journalctl -u ybbench-disks after)",
				m.Path, host, what, cloudinit.MountRoot, cloudinit.DataDir(0)))
		case first[m.Target] != "":
			out = append(out, fmt.Sprintf("data directories %s and %s on %s are both on %s: each needs a disk of its own", first[m.Target], m.Path, host, on))
		default:
			first[m.Target] = m.Path
		}
	}
	return out
}
