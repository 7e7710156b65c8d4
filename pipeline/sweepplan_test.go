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
// long; each step its warm-up, duration, start delay and 3 s. Reckoned
// here by hand for a sysbench workload, whose steps have a warm-up.
func TestPlanShowsSweepBound(t *testing.T) {
	s := Defaults()
	s.Profile, s.Workloads, s.Sweep = "sysbench-ysql", []string{"oltp_point_select"}, true
	d, w := 20*time.Second, 5*time.Second
	s.Duration, s.Warmup = &d, &w
	r, err := s.Resolve()
	if err != nil {
		t.Fatal(err)
	}
	without := Defaults()
	without.Profile, without.Workloads, without.Duration, without.Warmup = s.Profile, s.Workloads, &d, &w
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
	per := (w + d + r.StartDelay + 3*time.Second).Seconds()
	want := 16*per + 16*(per+d.Seconds())
	if got := pl.AtMostSeconds - pl0.AtMostSeconds; math.Abs(got-want) > 0.5 {
		t.Errorf("the sweep adds %v s at most, want %v", got, want)
	}
	line := sweepStage(pl)
	if !strings.Contains(line, "at most 32 steps") || !strings.Contains(line, "at most 16 extended") {
		t.Errorf("the sweep's stage: %q", line)
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

// sweepStage is what a plan says of its sweep ("" when it has none).
func sweepStage(pl *Plan) string {
	for _, st := range pl.Stages {
		if st.Stage == "sweep" {
			return st.What
		}
	}
	return ""
}
