//go:build integration

package sysbench

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// refLines are what the comparisons with sysbench 1.0.20 look at in a
// run's output: its warnings, its thread count, the debug and validation
// lines, and the events it ran.
type refLines struct {
	warnings []string
	threads  string
	debug    bool
	validate bool
	events   string
}

func refLinesOf(out string) refLines {
	var r refLines
	for _, l := range strings.Split(out, "\n") {
		t := strings.TrimSpace(l)
		switch {
		case strings.HasPrefix(t, "WARNING: Global option '") && strings.HasSuffix(t, "will not be exported, because the type is unknown"):
			// A config file's unknown names: sysbench warns of each as
			// every thread starts, a count that races (README,
			// deviations); ybload passes them over silently.
		case strings.HasPrefix(t, "WARNING:"):
			r.warnings = append(r.warnings, t)
		case strings.HasPrefix(t, "Number of threads:"):
			r.threads = t
		case t == "Debug mode enabled.":
			r.debug = true
		case t == "Validation checks: on.":
			r.validate = true
		case strings.HasPrefix(t, "transactions:"):
			r.events = strings.Fields(t)[1]
		}
	}
	return r
}

// TestIntegrationOptionsAgainstSysbench1020 runs Debian's sysbench 1.0.20
// and ybload sysbench --compat=1.0.20 with the same options against the
// same tables of the test PostgreSQL: the deprecated aliases (taking
// effect, with their warnings, when given other than their defaults and
// whatever the order against the new names), --test, --debug, --validate
// and --config-file (its options in its place on the line) give the same
// warnings, thread count, header lines and number of events.
func TestIntegrationOptionsAgainstSysbench1020(t *testing.T) {
	sb, err := exec.LookPath("sysbench")
	if err != nil {
		t.Skip("no sysbench on PATH (scripts/setup.sh installs Debian's)")
	}
	if out, err := exec.Command(sb, "--version").Output(); err != nil || !strings.HasPrefix(string(out), "sysbench 1.0.20") {
		t.Skipf("sysbench is not 1.0.20: %q %v", out, err)
	}
	d := newTestDB(t)
	d.must(t, "oltp_point_select", "--compat=1.0.20", "--tables=1", "--table-size=100", "prepare")
	conf := filepath.Join(t.TempDir(), "sb.conf")
	if err := os.WriteFile(conf, []byte("threads=2\nevents=25\nfoo=1\n# a comment\nthreads = 4\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		args []string
	}{
		{"aliases", []string{"oltp_point_select", "--num-threads=2", "--max-requests=50", "--max-time=0", "--tx-rate=0", "run"}},
		{"alias beats the new name", []string{"oltp_point_select", "--threads=3", "--num-threads=2", "--max-requests=40", "run"}},
		{"alias at its default", []string{"oltp_point_select", "--threads=3", "--num-threads=1", "--events=30", "--max-requests=0", "run"}},
		{"--test", []string{"--test=oltp_point_select", "--events=30", "run"}},
		{"--debug --validate", []string{"oltp_point_select", "--debug", "--validate=on", "--events=20", "run"}},
		{"--config-file then an option", []string{"oltp_point_select", "--config-file=" + conf, "--threads=3", "run"}},
		{"an option then --config-file", []string{"oltp_point_select", "--threads=3", "--config-file=" + conf, "run"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			ref := exec.Command(sb, append(append([]string{"--tables=1", "--table-size=100", "--rand-seed=7"}, c.args...), d.args()...)...)
			ref.Env = append(os.Environ(), "PGPASSWORD="+d.pg.Password)
			out, err := ref.CombinedOutput()
			if err != nil {
				t.Fatalf("sysbench: %v\n%s", err, out)
			}
			want := refLinesOf(string(out))
			if want.threads == "" || want.events == "" {
				t.Fatalf("sysbench's output has no thread count or events:\n%s", out)
			}
			r := d.must(t, append([]string{"--compat=1.0.20", "--tables=1", "--table-size=100", "--rand-seed=7"}, c.args...)...)
			got := refLinesOf(r.stdout)
			if strings.Join(got.warnings, "\n") != strings.Join(want.warnings, "\n") || got.threads != want.threads ||
				got.debug != want.debug || got.validate != want.validate || got.events != want.events {
				t.Errorf("sysbench 1.0.20: %+v\nours:           %+v\n--- sysbench\n%s--- ours\n%s", want, got, out, r.stdout)
			}
		})
	}
}

// TestIntegrationPercentileZeroAgainstSysbench1020: with --percentile=0
// sysbench 1.0.20 keeps no latency histogram: the report says the
// percentile statistics are disabled, and --histogram beside it is
// refused with its FATAL line on stderr and nothing run. Ours does the
// same (exit 2, bad input, where sysbench exits 1).
func TestIntegrationPercentileZeroAgainstSysbench1020(t *testing.T) {
	sb, err := exec.LookPath("sysbench")
	if err != nil {
		t.Skip("no sysbench on PATH (scripts/setup.sh installs Debian's)")
	}
	d := newTestDB(t)
	d.must(t, "oltp_point_select", "--compat=1.0.20", "--tables=1", "--table-size=100", "prepare")
	run := func(args ...string) (string, string, error) {
		c := exec.Command(sb, append(append([]string{"--tables=1", "--table-size=100"}, args...), d.args()...)...)
		c.Env = append(os.Environ(), "PGPASSWORD="+d.pg.Password)
		var out, errb strings.Builder
		c.Stdout, c.Stderr = &out, &errb
		err := c.Run()
		return out.String(), errb.String(), err
	}
	out, _, err := run("oltp_point_select", "--percentile=0", "--events=20", "run")
	if err != nil || !strings.Contains(out, "percentile stats:               disabled") {
		t.Fatalf("sysbench --percentile=0: %v\n%s", err, out)
	}
	r := d.must(t, "oltp_point_select", "--compat=1.0.20", "--tables=1", "--table-size=100", "--percentile=0", "--events=20", "run")
	if !strings.Contains(r.stdout, "percentile stats:               disabled") || strings.Contains(r.stdout, "th percentile:") {
		t.Errorf("ours with --percentile=0:\n%s", r.stdout)
	}
	out, errs, err := run("oltp_point_select", "--percentile=0", "--histogram=on", "--events=20", "run")
	// sysbench prints the line on stdout with a script, on stderr with its
	// built-in tests; ybload's errors go to stderr.
	if err == nil || !strings.Contains(out+errs, "FATAL: --histogram cannot be used with --percentile=0") || strings.Contains(out, "transactions:") {
		t.Fatalf("sysbench --percentile=0 --histogram: %v\nstdout %q\nstderr %q", err, out, errs)
	}
	r = d.sb(t, t.Context(), "oltp_point_select", "--compat=1.0.20", "--tables=1", "--table-size=100", "--percentile=0", "--histogram=on", "--events=20", "run")
	if r.code != 2 || !strings.Contains(r.stderr, "--histogram cannot be used with --percentile=0") || strings.Contains(r.stdout, "transactions:") {
		t.Errorf("ours with --percentile=0 --histogram: exit %d\nstdout %q\nstderr %q", r.code, r.stdout, r.stderr)
	}
}

// TestIntegrationOptionValuesAgainstSysbench1020 gives Debian's sysbench
// 1.0.20 and ybload sysbench --compat=1.0.20 the same option values:
// --rand-spec-pct and --rand-spec-res are integers, and booleans (global
// and the script's) are on/off, true/false or 1/0 in lower case — each
// accepted or refused alike. --rand-pareto-h outside (0, 1), which
// sysbench accepts and then draws ids from a NaN power with, is refused
// by ours (README, deviations).
func TestIntegrationOptionValuesAgainstSysbench1020(t *testing.T) {
	sb, err := exec.LookPath("sysbench")
	if err != nil {
		t.Skip("no sysbench on PATH (scripts/setup.sh installs Debian's)")
	}
	d := newTestDB(t)
	d.must(t, "oltp_point_select", "--compat=1.0.20", "--tables=1", "--table-size=100", "prepare")
	for _, c := range []struct {
		opt      string
		declared bool // sysbench accepts it, ours refuses it
	}{
		{"--rand-spec-pct=2", false}, {"--rand-spec-pct=1.5", false}, {"--rand-spec-res=80", false}, {"--rand-spec-res=75.5", false},
		{"--histogram=on", false}, {"--histogram=true", false}, {"--histogram=1", false}, {"--histogram=0", false},
		{"--histogram=yes", false}, {"--histogram=ON", false}, {"--histogram=no", false}, {"--histogram=", false},
		{"--skip_trx=true", false}, {"--skip_trx=yes", false},
		{"--rand-pareto-h=0.5", false}, {"--rand-pareto-h=2", true}, {"--rand-pareto-h=0", true},
	} {
		t.Run(c.opt, func(t *testing.T) {
			ref := exec.Command(sb, append([]string{"--tables=1", "--table-size=100", "oltp_point_select", c.opt, "--events=5", "run"}, d.args()...)...)
			ref.Env = append(os.Environ(), "PGPASSWORD="+d.pg.Password)
			out, err := ref.CombinedOutput()
			sbAccepts := err == nil && strings.Contains(string(out), "transactions:")
			r := d.sb(t, t.Context(), "oltp_point_select", "--compat=1.0.20", "--tables=1", "--table-size=100", c.opt, "--events=5", "run")
			oursAccepts := r.code == 0
			switch {
			case c.declared && (!sbAccepts || oursAccepts || r.code != 2):
				t.Errorf("sysbench accepts: %v (want true), ours exit %d (want 2)\n%s\n%s", sbAccepts, r.code, out, r.stderr)
			case !c.declared && sbAccepts != oursAccepts:
				t.Errorf("sysbench accepts: %v, ours: exit %d\n--- sysbench\n%s--- ours\n%s", sbAccepts, r.code, out, r.stderr)
			case !c.declared && !oursAccepts && r.code != 2:
				t.Errorf("ours refused with exit %d, want 2\n%s", r.code, r.stderr)
			}
		})
	}
}
