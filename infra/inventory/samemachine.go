package inventory

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/ybbench/ybbench/infra"
)

// checkOneMachineTwice refuses two entries that log in to the same
// machine (the same address and SSH port) unless both say shared: true
// and their directories lie apart: two entries of one machine would
// install, start and later wipe two databases in one place, each
// believing the machine its own. lines are the entries' address lines.
func checkOneMachineTwice(v *validator, hosts []infra.Host, lines []int) {
	first := map[string]int{} // address:port → the first entry's index
	for j, h := range hosts {
		if h.PublicIP == "" {
			continue // refused already: no address
		}
		port := h.SSH.Port
		if port == 0 {
			port = 22
		}
		key := fmt.Sprintf("%s:%d", strings.ToLower(h.PublicIP), port)
		i, dup := first[key]
		if !dup {
			first[key] = j
			continue
		}
		other := hosts[i]
		field := fmt.Sprintf("hosts[%d].address", j)
		switch {
		case !h.Shared || !other.Shared:
			v.add(lines[j], field, fmt.Sprintf("%s (SSH port %d) is also hosts[%d]'s (%s): one machine in two entries needs shared: true on both, with directories apart",
				h.PublicIP, port, i, other.Name))
		default:
			if a, b, ok := overlapping(hostDirs(other), hostDirs(h)); ok {
				v.add(lines[j], field, fmt.Sprintf("%s (SSH port %d) is also hosts[%d]'s (%s), and their directories overlap: %s and %s",
					h.PublicIP, port, i, other.Name, a, b))
			}
		}
	}
}

// hostDirs are the directories a flavor writes on a host: its base and
// data directories.
func hostDirs(h infra.Host) []string {
	return append([]string{h.Base}, h.DataDirs...)
}

// overlapping finds a directory of as that is, or holds, or lies in, a
// directory of bs.
func overlapping(as, bs []string) (string, string, bool) {
	for _, a := range as {
		for _, b := range bs {
			if a == "" || b == "" {
				continue
			}
			if within(a, b) || within(b, a) {
				return a, b, true
			}
		}
	}
	return "", "", false
}

// within reports whether path p is dir or lies inside it.
func within(p, dir string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, "../")
}
