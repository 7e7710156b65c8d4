package provision

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/ybbench/ybbench/infra"
	"github.com/ybbench/ybbench/internal/shellquote"
)

// preflightPaths are the directories whose free space is checked: Base
// and the data directories (Base/data when none are given).
func preflightPaths(h infra.Host) []string {
	var out []string
	seen := map[string]bool{}
	add := func(p string) {
		if p != "" && !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	add(h.Base)
	if len(h.DataDirs) == 0 && h.Base != "" {
		add(filepath.Join(h.Base, "data"))
	}
	for _, d := range h.DataDirs {
		add(d)
	}
	return out
}

// factsScript prints the ulimits and, per path, the free kilobytes of the
// path or of its nearest existing ancestor (a run's directories may not
// exist yet), tab-separated; then, per mountDirs entry (a cloud host's
// data directories), the mount that holds it (writeMountsScript).
func factsScript(paths, mountDirs []string) string {
	var b strings.Builder
	b.WriteString("set -u\n")
	b.WriteString("printf 'kernel\\t%s\\n' \"$(uname -r)\"\n")
	b.WriteString("printf 'arch\\t%s\\n' \"$(uname -m)\"\n")
	b.WriteString("printf 'cpus\\t%s\\n' \"$(nproc)\"\n")
	b.WriteString("printf 'mem_kb\\t%s\\n' \"$(awk '/^MemTotal:/ {print $2}' /proc/meminfo)\"\n")
	b.WriteString("printf 'os\\t%s\\n' \"$(. /etc/os-release 2>/dev/null; echo \"${PRETTY_NAME:-}\")\"\n")
	b.WriteString("printf 'nofile\\t%s\\n' \"$(ulimit -n)\"\n")
	b.WriteString("printf 'nproc\\t%s\\n' \"$(ulimit -u)\"\n")
	if len(paths) > 0 {
		b.WriteString("for p in")
		for _, p := range paths {
			b.WriteString(" " + shellquote.Quote(p))
		}
		b.WriteString(`; do
  d=$p
  while [ ! -e "$d" ]; do d=$(dirname -- "$d"); done
  avail=$(df -Pk -- "$d" | awk 'NR==2 {print $4}')
  printf 'disk\t%s\t%s\t%s\n' "${avail:-unknown}" "$d" "$p"
done
`)
	}
	writeMountsScript(&b, mountDirs)
	return b.String()
}

// parseFacts reads factsScript's output into c.
func parseFacts(out []byte, c *Check, minFree int64) error {
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Split(line, "\t")
		switch {
		case len(f) == 2 && (f[0] == "nofile" || f[0] == "nproc"):
			v, err := parseUlimit(f[1])
			if err != nil {
				return fmt.Errorf("ulimit %s: %w", f[0], err)
			}
			if f[0] == "nofile" {
				c.NoFile = v
			} else {
				c.NProc = v
			}
		case len(f) == 2 && (f[0] == "kernel" || f[0] == "arch" || f[0] == "os"):
			*map[string]*string{"kernel": &c.System.Kernel, "arch": &c.System.Arch, "os": &c.System.OS}[f[0]] = f[1]
		case len(f) == 2 && f[0] == "cpus":
			n, err := strconv.Atoi(f[1])
			if err != nil {
				return fmt.Errorf("nproc printed %q", f[1])
			}
			c.System.CPUs = n
		case len(f) == 2 && f[0] == "mem_kb":
			n, err := strconv.ParseInt(f[1], 10, 64)
			if err != nil {
				return fmt.Errorf("MemTotal of /proc/meminfo: %q", f[1])
			}
			c.System.MemKB = n
		case len(f) == 4 && f[0] == "disk":
			kb, err := strconv.ParseInt(f[1], 10, 64)
			if err != nil {
				return fmt.Errorf("free disk of %s: df printed %q", f[3], f[1])
			}
			c.Disks = append(c.Disks, DiskCheck{Path: f[3], Checked: f[2], FreeBytes: kb * 1024, MinFreeBytes: minFree})
		case len(f) == 4 && f[0] == "mount":
			c.Mounts = append(c.Mounts, parseMount(f[1], f[2], f[3]))
		case line == "":
		default:
			return fmt.Errorf("unexpected output line %q", line)
		}
	}
	return nil
}

func parseUlimit(s string) (int64, error) {
	if s == "unlimited" {
		return -1, nil
	}
	return strconv.ParseInt(s, 10, 64)
}

// bytesIEC formats a byte count in GiB or MiB.
func bytesIEC(n int64) string {
	if n >= 1<<30 {
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	}
	return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
}
