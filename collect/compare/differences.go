package compare

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// differences says how each run differs from the first in what it ran:
// runs of another profile, flavor or parameters are still compared, but a
// reader must know that their figures do not measure the same thing.
func differences(runs []Run) []string {
	if len(runs) == 0 {
		return nil
	}
	a := runs[0]
	var out []string
	for i, b := range runs[1:] {
		l := Label(i + 1)
		if b.Profile != a.Profile {
			out = append(out, fmt.Sprintf("%s ran profile %s, A ran %s", l, b.Profile, a.Profile))
		}
		if b.Flavor != a.Flavor {
			out = append(out, fmt.Sprintf("%s ran on flavor %s, A on %s", l, b.Flavor, a.Flavor))
		}
		if b.Repetitions != a.Repetitions {
			out = append(out, fmt.Sprintf("%s has %s, A %d", l, repetitions(b.Repetitions), a.Repetitions))
		}
		names := slices.Sorted(maps.Keys(a.Parameters))
		for n := range maps.Keys(b.Parameters) {
			if _, ok := a.Parameters[n]; !ok {
				names = append(names, n)
			}
		}
		slices.Sort(names)
		var params []string
		for _, n := range names {
			va, oka := a.Parameters[n]
			vb, okb := b.Parameters[n]
			if oka == okb && va == vb {
				continue
			}
			params = append(params, fmt.Sprintf("%s %s (A: %s)", n, shown(vb, okb), shown(va, oka)))
		}
		if len(params) > 0 {
			out = append(out, fmt.Sprintf("%s's parameters differ from A's: %s", l, strings.Join(params, ", ")))
		}
	}
	return out
}

func shown(v string, ok bool) string {
	if !ok {
		return "unset"
	}
	return v
}

func repetitions(n int) string {
	if n == 1 {
		return "1 repetition"
	}
	return fmt.Sprintf("%d repetitions", n)
}
