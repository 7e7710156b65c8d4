package pipeline

import (
	"math"
	"strings"
	"testing"
	"time"
)

// plan shows a sweep's bound before anything is made: with the default
// fractions (9, the highest 110%), at most 2 × (9 + 6 bisections + 1
// confirmation) = 32 steps a workload, half of them extensions twice as
// long; each step its own warm-up (sweep_warmup, not the run's), its time
// (the run's duration, below 45 s), the start delay and 3 s. Reckoned here
// by hand for a sysbench workload, whose run has a warm-up of its own.
func TestPlanShowsSweepBound(t *testing.T) {
	s := Defaults()
	s.Profile, s.Workloads, s.Sweep = "sysbench-ysql", []string{"oltp_point_select"}, true
	d, runWarmup, w := 20*time.Second, 9*time.Second, 5*time.Second
	s.Duration, s.Warmup = &d, &runWarmup
	r, err := s.Resolve()
	if err != nil {
		t.Fatal(err)
	}
	without := Defaults()
	without.Profile, without.Workloads, without.Duration, without.Warmup = s.Profile, s.Workloads, &d, &runWarmup
	r0, err := without.Resolve()
	if err != nil {
		t.Fatal(err)
	}
	pl, err := MakePlan(r, planDeps())
	if err != nil {
		t.Fatal(err)
	}
	pl0, err := MakePlan(r0, planDeps())
	if err != nil {
		t.Fatal(err)
	}
	// One client (the local default): its agent waits for no other, so
	// no start delay is in the bound.
	per := (w + d + 3*time.Second).Seconds()
	want := 16*per + 16*(per+d.Seconds())
	if got := pl.AtMostSeconds - pl0.AtMostSeconds; math.Abs(got-want) > 0.5 {
		t.Errorf("the sweep adds %v s at most, want %v", got, want)
	}
	// Two clients start together, start_delay (3s) ahead; on one client a
	// start_delay given (5s) is waited too.
	for _, tc := range []struct {
		clients int
		delay   string
		want    time.Duration
	}{{2, "", 3 * time.Second}, {1, "5s", 5 * time.Second}} {
		sp := s
		sp.ClientHosts = tc.clients
		if tc.delay != "" {
			if err := SetString(&sp, "start_delay", tc.delay); err != nil {
				t.Fatal(err)
			}
		}
		sb, ok := sweepBound(mustResolve(t, sp), tc.clients)
		per := (w + d + tc.want + 3*time.Second).Seconds()
		if want := 16*per + 16*(per+d.Seconds()); !ok || math.Abs(sb.seconds-want) > 0.5 {
			t.Errorf("%d clients, start_delay %q: bound %v s, want %v (a start delay of %v in each step)", tc.clients, tc.delay, sb.seconds, want, tc.want)
		}
	}
	line := sweepStage(pl)
	if !strings.Contains(line, "at most 32 steps") || !strings.Contains(line, "at most 16 extended") {
		t.Errorf("the sweep's stage: %q", line)
	}
	// Repeated 3 times: a sweep after each repetition's run, 3 times the
	// bound (beside 3 runs).
	s.Repeat, without.Repeat = 3, 3
	if r, err = s.Resolve(); err != nil {
		t.Fatal(err)
	}
	if r0, err = without.Resolve(); err != nil {
		t.Fatal(err)
	}
	if pl, err = MakePlan(r, planDeps()); err != nil {
		t.Fatal(err)
	}
	if pl0, err = MakePlan(r0, planDeps()); err != nil {
		t.Fatal(err)
	}
	if got := pl.AtMostSeconds - pl0.AtMostSeconds; math.Abs(got-3*want) > 0.5 || !strings.Contains(sweepStage(pl), "per repetition of a workload") {
		t.Errorf("repeated 3 times, the sweep adds %v s at most, want %v: %q", got, 3*want, sweepStage(pl))
	}
}

// On the published hardware a default sweep of one workload is bounded
// under 45 minutes, the goal, and plan says so: its steps are 45 s
// (the profiles' runs are longer), warmed up for 5 s; sweep_step and
// sweep_warmup change the bound; the whole-seconds rule and the "with
// sweep" rule refuse them naming the setting, and each given alone with a
// sweep is taken (the positive controls).
func TestSweepStepAndWarmupSettings(t *testing.T) {
	// On the published hardware's one client (and a local cluster's one)
	// no start delay is waited.
	bound := func(s Spec) (float64, string) {
		t.Helper()
		sb, ok := sweepBound(mustResolve(t, s), 1)
		if !ok {
			t.Fatal("no sweep bound")
		}
		return sb.seconds, sb.stage.What
	}
	for _, prof := range []string{"ycsb-ysql", "ycsb-ycql", "kv-ycql", "sysbench-ysql"} {
		s := Defaults()
		s.Profile, s.Provider, s.Sweep = prof, "aws", true
		s.Workloads = mustResolve(t, s).Workloads[:1]
		secs, what := bound(s)
		if secs > 45*60 {
			t.Errorf("%s: a default sweep of one workload is bounded at %v, over 45 minutes: %s", prof, time.Duration(secs)*time.Second, what)
		}
		if !strings.Contains(what, "32 steps of 53s (a 5s warm-up, 45s measured") {
			t.Errorf("%s: %s", prof, what)
		}
	}
	s := sweepSpec("ycsb-ysql", "workloadc")
	s.SweepStep, s.SweepWarmup = 10*time.Second, 2*time.Second
	secs, what := bound(s)
	per := (2*time.Second + 10*time.Second + 3*time.Second).Seconds()
	if want := 16*per + 16*(per+10); math.Abs(secs-want) > 0.5 || !strings.Contains(what, "steps of 15s (a 2s warm-up, 10s measured") {
		t.Errorf("sweep_step 10s, sweep_warmup 2s: bound %v s, want %v: %s", secs, want, what)
	}
	for _, tc := range []struct {
		sweep       bool
		step, warm  time.Duration
		want, about string
	}{
		{true, 1500 * time.Millisecond, 5 * time.Second, "sweep_step", "whole seconds"},
		{true, 10 * time.Second, 500 * time.Millisecond, "sweep_warmup", "whole seconds"},
		{true, -time.Second, 5 * time.Second, "sweep_step", ""},
		{true, 10 * time.Second, -time.Second, "sweep_warmup", ""},
		{false, 10 * time.Second, 5 * time.Second, "sweep_step", "without sweep"},
		{false, 0, 3 * time.Second, "sweep_warmup", "without sweep"},
	} {
		s := sweepSpec("ycsb-ysql", "workloadc")
		s.Sweep, s.SweepStep, s.SweepWarmup = tc.sweep, tc.step, tc.warm
		_, err := s.Resolve()
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), tc.about) {
			t.Errorf("sweep %v, sweep_step %v, sweep_warmup %v: %v, want a refusal naming %s (%s)", tc.sweep, tc.step, tc.warm, err, tc.want, tc.about)
		}
	}
}

// The run's duration and warm-up are whole seconds too: a 500ms duration
// was cut to none, so that a run (and every sweep step) had no time bound;
// 2s is taken (the positive control).
func TestDurationsAreWholeSeconds(t *testing.T) {
	for _, tc := range []struct {
		profile, workload, name string
		d                       time.Duration
	}{
		{"ycsb-ysql", "workloadc", "duration", 500 * time.Millisecond},
		{"kv-ycql", "write-heavy", "duration", 2500 * time.Millisecond},
		{"sysbench-ysql", "oltp_point_select", "warmup", 1500 * time.Millisecond},
	} {
		s := sweepSpec(tc.profile, tc.workload)
		d := tc.d
		if tc.name == "duration" {
			s.Duration = &d
		} else {
			s.Warmup = &d
		}
		if _, err := s.Resolve(); err == nil || !strings.Contains(err.Error(), tc.name+": "+d.String()+": want whole seconds") {
			t.Errorf("%s %s %v: %v", tc.profile, tc.name, d, err)
		}
		d = 2 * time.Second
		if got := mustResolve(t, s).sweepStepTime(); tc.name == "duration" && got != d {
			t.Errorf("%s: steps of %v after a 2s run", tc.profile, got)
		}
	}
}

// sweep_resolution narrows the plan's bound (fractions up to 100% at 10%:
// 2 × (2 + 4 bisections + 1) = 14 steps), is refused without a sweep and
// when not a number above 0, each refusal naming the setting.
func TestSweepResolutionSetting(t *testing.T) {
	s := Defaults()
	s.Profile, s.Workloads, s.Sweep = "ycsb-ysql", []string{"workloadc"}, true
	s.SweepFractions, s.SweepResolution = []string{"20", "100"}, "10"
	r, err := s.Resolve()
	if err != nil {
		t.Fatal(err)
	}
	pl, err := MakePlan(r, planDeps())
	if err != nil {
		t.Fatal(err)
	}
	line := sweepStage(pl)
	if !strings.Contains(line, "bisected to 10% of it") || !strings.Contains(line, "at most 14 steps") {
		t.Errorf("the sweep's stage: %q", line)
	}
	for _, tc := range []struct {
		sweep bool
		value string
		want  string
	}{
		{false, "10", "sweep_resolution"},
		{true, "ten", "sweep_resolution"},
		{true, "0", "sweep_resolution"},
		{true, "150", "sweep_resolution"},
	} {
		s := Defaults()
		s.Profile, s.Workloads, s.Sweep, s.SweepResolution = "ycsb-ysql", []string{"workloadc"}, tc.sweep, tc.value
		_, err := s.Resolve()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("sweep %v, sweep_resolution %q: %v", tc.sweep, tc.value, err)
		}
	}
}

// sweepSpec is the defaults with a sweep of one workload of a profile.
func sweepSpec(profile, workload string) Spec {
	s := Defaults()
	s.Profile, s.Workloads, s.Sweep = profile, []string{workload}, true
	return s
}

// mustResolve resolves a spec the test means to be good.
func mustResolve(t *testing.T, s Spec) *Resolved {
	t.Helper()
	r, err := s.Resolve()
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// sweepStage is what a plan says of its sweep ("" when it has none).
func sweepStage(pl *Plan) string {
	for _, st := range pl.Stages {
		if st.Stage == "sweep" {
			return st.What
		}
	}
	return ""
}
