package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/ybbench/ybbench/pipeline"
)

// `ybbench run --help` is the settings table: one flag per setting and per
// preset, with the table's usage line, and nothing else but the run's own.
func TestRunFlagsAreTheSettingsTable(t *testing.T) {
	var out bytes.Buffer
	root := newRoot(&out, &out)
	run, _, err := root.Find([]string{"run"})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{}
	for _, st := range pipeline.Settings() {
		want[pipeline.FlagName(st.Name)] = st.FlagUsage()
		if !strings.Contains(st.FlagUsage(), pipeline.EnvName(st.Name)) {
			t.Errorf("--%s's help does not name %s", st.Name, pipeline.EnvName(st.Name))
		}
	}
	for _, p := range pipeline.Presets() {
		want[p.Name] = p.FlagUsage()
	}
	// The run's own: the gate file its results are judged by is no
	// setting of the cluster or the workload (ybbench gate takes it too).
	probe := &runGateFlags{}
	own := &cobra.Command{Use: "run"}
	probe.register(own)
	own.Flags().VisitAll(func(f *pflag.Flag) { want[f.Name] = f.Usage })
	seen := 0
	run.LocalFlags().VisitAll(func(f *pflag.Flag) {
		if f.Name == "help" {
			return
		}
		seen++
		if u, ok := want[f.Name]; !ok || u != f.Usage {
			t.Errorf("--%s: usage %q, the table says %q (in the table: %v)", f.Name, f.Usage, u, ok)
		}
	})
	if seen != len(want) {
		t.Errorf("run has %d flags, the table %d", seen, len(want))
	}
	root.SetOut(&out)
	root.SetArgs([]string{"run", "--help"})
	if err := root.Execute(); err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"--quick", "records=20000", "--db-hosts integer", "YBBENCH_DB_HOSTS", "--db-auth on|off"} {
		if !strings.Contains(out.String(), w) {
			t.Errorf("run --help lacks %q:\n%s", w, out.String())
		}
	}
}

// --quick through the command line: the plan marks its settings as
// overridden, only those the profile uses (sysbench has no operation count
// or load threads), and a flag beside it wins.
func TestQuickPresetOnTheCommandLine(t *testing.T) {
	t.Setenv("YBBENCH_TERRAFORM", versionOnly(t, "1.5.7")) // plan --local checks it
	var out bytes.Buffer
	root := newRoot(&out, &out)
	root.SetArgs([]string{"plan", "--local", "--quick", "--profile", "sysbench-ysql", "--threads", "5", "--runs-dir", t.TempDir()})
	if err := root.Execute(); err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"overridden: records, duration, warmup, threads (", "chosen, not asked for: flavor postgres — ", "--threads=5", "--warmup-time=10", "--time=60"} {
		if !strings.Contains(out.String(), w) {
			t.Errorf("plan lacks %q:\n%s", w, out.String())
		}
	}
}
