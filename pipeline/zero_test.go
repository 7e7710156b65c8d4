package pipeline

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"
)

// Zero is not "the profile's": an explicit 0 for a workload parameter is
// refused (exit 2 at the command line), from whichever layer it comes,
// naming that layer; --quick is not undone by it.
func TestZeroIsRefusedNotTheProfiles(t *testing.T) {
	for _, name := range []string{"records", "operations", "duration", "threads", "load_threads"} {
		zero := "0"
		if name == "duration" {
			zero = "0s"
		}
		file := writeSpec(t, name+": "+zero+"\n")
		env := map[string]string{EnvName(name): zero}
		for _, c := range []struct {
			layer string
			cl    CommandLine
			want  string
		}{
			{"flag", CommandLine{Flags: map[string]string{name: zero}}, "--" + FlagName(name) + ": 0"},
			{"flag beside --quick", CommandLine{Presets: []string{"quick"}, Flags: map[string]string{name: zero}}, "--" + FlagName(name) + ": 0"},
			{"variable", CommandLine{Getenv: func(k string) string { return env[k] }}, EnvName(name) + ": 0"},
			{"file", CommandLine{File: file}, file + ":1: " + name + ": 0"},
		} {
			s, err := Load(c.cl)
			if err != nil {
				t.Fatalf("%s %s: %v", name, c.layer, err)
			}
			_, err = s.Resolve()
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "want ≥ 1") && !strings.Contains(err.Error(), "want > 0") {
				t.Errorf("%s=0 by %s: %v, want %q", name, c.layer, err, c.want)
			}
		}
	}
}

// A warm-up of 0 is a value of its own (no warm-up), kept apart from "not
// given" through run.json, and reported as overridden on a profile that
// has one.
func TestWarmupZeroMeansNone(t *testing.T) {
	s, err := Load(CommandLine{Flags: map[string]string{"profile": "sysbench-ysql", "warmup": "0s"}})
	if err != nil {
		t.Fatal(err)
	}
	// What Open reads back from the ledger.
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	var back Spec
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	for _, sp := range []Spec{s, back} {
		r, err := sp.Resolve()
		if err != nil {
			t.Fatal(err)
		}
		if r.Params.Warmup != 0 || !slices.Contains(r.Overridden, "warmup") {
			t.Errorf("warmup 0: params %v, overridden %v", r.Params.Warmup, r.Overridden)
		}
	}
	// Not given: the profile's (seed 003's 120 s), from run.json too.
	var unset Spec
	d := Defaults()
	d.Profile = "sysbench-ysql"
	b, _ = json.Marshal(d)
	if err := json.Unmarshal(b, &unset); err != nil {
		t.Fatal(err)
	}
	r, err := unset.Resolve()
	if err != nil || r.Params.Warmup != 120*time.Second || slices.Contains(r.Overridden, "warmup") {
		t.Errorf("warmup unset: %v %v %v", r.Params.Warmup, r.Overridden, err)
	}
	// A positive warm-up on a profile without one is refused, naming the flag.
	s, _ = Load(CommandLine{Flags: map[string]string{"profile": "ycsb-ysql", "warmup": "5s"}})
	if _, err := s.Resolve(); err == nil || !strings.Contains(err.Error(), "--warmup: profile ycsb-ysql") {
		t.Errorf("warmup on ycsb: %v", err)
	}
}

// Every problem of every layer is reported, each naming where its value
// came from; a value that does not parse is reported once.
func TestEveryProblemNamesItsSource(t *testing.T) {
	file := writeSpec(t, "db_hosts: 40\n")
	env := map[string]string{"YBBENCH_CLIENT_HOSTS": "0"}
	s, lerr := Load(CommandLine{File: file, Getenv: func(k string) string { return env[k] },
		Flags: map[string]string{"records": "abc", "threads": "-1", "profile": "nope"}})
	_, verr := s.Resolve()
	got := lerr.Error() + "\n" + verr.Error()
	for _, want := range []string{`--records: "abc" is not an integer`, "--threads: -1: want ≥ 1", `--profile: unknown profile "nope"`,
		file + ":1: db_hosts: 40 (want 1 to 32", "YBBENCH_CLIENT_HOSTS: 0 (want 1 to 8)"} {
		if !strings.Contains(got, want) {
			t.Errorf("errors lack %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "--records: 0") {
		t.Errorf("a value that does not parse is reported again as out of range:\n%s", got)
	}
}

// An inventory beside a provider that takes none says to drop what chose
// that provider: --local only when --local did.
func TestInventoryRemedyNamesWhatChoseTheProvider(t *testing.T) {
	for _, c := range []struct {
		cl        CommandLine
		want, not string
	}{
		{CommandLine{Flags: map[string]string{"provider": "local", "inventory": "h.yaml"}}, "(drop --provider or the inventory, or set provider: inventory)", "--local"},
		{CommandLine{Presets: []string{"local"}, Flags: map[string]string{"inventory": "h.yaml"}}, "(drop --local, or set provider: inventory)", "--provider"},
		{CommandLine{Getenv: func(k string) string {
			return map[string]string{"YBBENCH_PROVIDER": "local", "YBBENCH_INVENTORY": "h.yaml"}[k]
		}}, "(drop YBBENCH_PROVIDER or the inventory", "--local"},
	} {
		s, _ := Load(c.cl)
		_, err := s.Resolve()
		if err == nil || !strings.Contains(err.Error(), "h.yaml is given but the provider is local "+c.want) || strings.Contains(err.Error(), c.not) {
			t.Errorf("%+v: %v, want %q without %q", c.cl, err, c.want, c.not)
		}
	}
}
