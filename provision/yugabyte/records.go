package yugabyte

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/ybbench/ybbench/provision/internal/scriptrec"
)

// records are the "YBB <key> <value>" lines a script printed, in order.
type records = scriptrec.Records

func parseRecords(stdout []byte) records { return scriptrec.Parse("YBB ", stdout) }

// procLimits maps the rows of /proc/<pid>/limits to the limits.conf items
// of specs/yugabyte-deploy.md §2.2, and gives each item's wanted value in
// /proc's units (bytes for memlock and stack).
var procLimits = []struct {
	row, item, want string
}{
	{"Max core file size", "core", "unlimited"},
	{"Max data size", "data", "unlimited"},
	{"Max file size", "fsize", "unlimited"},
	{"Max pending signals", "sigpending", "119934"},
	{"Max locked memory", "memlock", "65536"},
	{"Max resident set", "rss", "unlimited"},
	{"Max open files", "nofile", "1048576"},
	{"Max msgqueue size", "msgqueue", "819200"},
	{"Max stack size", "stack", "8388608"},
	{"Max cpu time", "cpu", "unlimited"},
	{"Max processes", "nproc", "12000"},
	{"Max file locks", "locks", "unlimited"},
	{"Max address space", "as", "unlimited"},
}

var columns = regexp.MustCompile(`\s{2,}`)

// summarizeLimits turns the lines of /proc/<pid>/limits into
// "item=soft/hard …" in the spec's order, and lists the items whose soft
// limit differs from the spec's value.
func summarizeLimits(lines []string) (summary string, off []string) {
	soft, hard := map[string]string{}, map[string]string{}
	for _, l := range lines {
		f := columns.Split(strings.TrimSpace(l), -1)
		if len(f) < 3 {
			continue
		}
		soft[f[0]], hard[f[0]] = f[1], f[2]
	}
	var parts []string
	for _, p := range procLimits {
		s, ok := soft[p.row]
		if !ok {
			continue
		}
		parts = append(parts, fmt.Sprintf("%s=%s/%s", p.item, s, hard[p.row]))
		if s != p.want {
			off = append(off, fmt.Sprintf("%s=%s (spec: %s)", p.item, s, p.want))
		}
	}
	return strings.Join(parts, " "), off
}

// chronyState is what the clock check read from `chronyc tracking`.
type chronyState struct {
	Leap     string
	Stratum  string
	Interval string
	// ErrorBound is |system time offset| + root dispersion + root delay/2,
	// the clock error estimate of specs/yugabyte-deploy.md §2.1 (D1), in
	// seconds; NaN when a field was missing.
	ErrorBound float64
}

// parseChrony reads the fields the clock check needs from the lines of
// `chronyc tracking`.
func parseChrony(lines []string) chronyState {
	fields := map[string]string{}
	for _, l := range lines {
		k, v, ok := strings.Cut(l, ":")
		if !ok {
			continue
		}
		fields[strings.TrimSpace(k)] = strings.TrimSpace(v)
	}
	num := func(k string) float64 {
		f := strings.Fields(fields[k])
		if len(f) == 0 {
			return math.NaN()
		}
		x, err := strconv.ParseFloat(f[0], 64)
		if err != nil {
			return math.NaN()
		}
		return math.Abs(x)
	}
	return chronyState{
		Leap:       fields["Leap status"],
		Stratum:    fields["Stratum"],
		Interval:   fields["Update interval"],
		ErrorBound: num("System time") + num("Root dispersion") + num("Root delay")/2,
	}
}

func (c chronyState) String() string {
	bound := "unknown"
	if !math.IsNaN(c.ErrorBound) {
		bound = fmt.Sprintf("%.6f s", c.ErrorBound)
	}
	return fmt.Sprintf("chronyc tracking: leap status %s, stratum %s, update interval %s, clock error bound %s (|system time| + root dispersion + root delay/2)",
		orDefault(c.Leap, "?"), orDefault(c.Stratum, "?"), orDefault(c.Interval, "?"), bound)
}
