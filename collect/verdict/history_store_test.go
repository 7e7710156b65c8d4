package verdict

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ybbench/ybbench/collect"
	"github.com/ybbench/ybbench/collect/history"
	"github.com/ybbench/ybbench/collect/history/historytest"
)

// slowedHistory is a store of twelve runs of one profile under builds
// b01…b12, the database 30% slower from b08 on (2% noise, a fixed seed),
// and each run's result.
func slowedHistory(t *testing.T, n int) (string, []*collect.Result) {
	t.Helper()
	ctx := context.Background()
	url := "sqlite:" + filepath.Join(t.TempDir(), "history.db")
	st, err := history.Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	rng := rand.New(rand.NewPCG(3, 4))
	parent := t.TempDir()
	var rs []*collect.Result
	for i := 1; i <= n; i++ {
		scale := 1.0
		if i >= 8 {
			scale = 0.7
		}
		scale *= 1 + 0.02*rng.NormFloat64()
		dir := historytest.Run(t, parent, fmt.Sprintf("run-%02d", i), time.Unix(1_800_000_000+int64(i)*600, 0), fmt.Sprintf("b%02d", i), scale)
		if _, err := history.AddRun(ctx, st, dir, history.Build{}); err != nil {
			t.Fatal(err)
		}
		r, err := history.ReadResultFile(filepath.Join(dir, "result.json"))
		if err != nil {
			t.Fatal(err)
		}
		rs = append(rs, r)
	}
	return url, rs
}

// judgeWith evaluates a gate file of a store-series baseline on result r.
func judgeWith(t *testing.T, url string, r *collect.Result) *Verdict {
	t.Helper()
	f, err := Parse("gate.yaml", []byte("baseline: {history: {series: auto, window: 30, url: "+url+"}}\n"+
		"gates:\n  - {workload: \"*\", metric: throughput, op: \">=\", ratio: 0.9}\n"))
	if err != nil {
		t.Fatal(err)
	}
	base, err := BaselineFor(context.Background(), f, r, "")
	if err != nil {
		t.Fatal(err)
	}
	return Evaluate(f, r, base, time.Unix(1_900_000_000, 0))
}

// A gate on the history store's series fails the build whose series has,
// up to it, a change point that worsened the figure past the gate's
// tolerance, naming the change point and the builds around it; the builds
// before the slow-down pass, with no change point up to them.
func TestStoreHistoryGate(t *testing.T) {
	url, rs := slowedHistory(t, 12)
	v := judgeWith(t, url, rs[11])
	if v.Outcome != Fail || len(v.Gates) != 1 {
		t.Fatalf("build b12: %s, gates %+v", v.Outcome, v.Gates)
	}
	g := v.Gates[0]
	if cp := g.ChangePoint; cp == nil || cp.FirstBad.ID != "b08" || cp.LastGood.ID != "b07" || cp.PValue >= 0.001 || !strings.Contains(g.Note, "change point at build b08") {
		t.Errorf("b12's gate: %+v, change point %+v", g, g.ChangePoint)
	}
	if err := Validate(mustJSON(t, v)); err != nil {
		t.Errorf("verdict.json: %v", err)
	}
	if g.Ratio == nil || *g.Ratio > 0.8 {
		t.Errorf("b12's ratio %v: the run against the level before the change", g.Ratio)
	}
	for _, i := range []int{4, 6} {
		v := judgeWith(t, url, rs[i])
		if v.Outcome != Pass || v.Gates[0].ChangePoint != nil || !strings.Contains(v.Gates[0].Note, "no change point") {
			t.Errorf("build b%02d, before the slow-down: %s %+v", i+1, v.Outcome, v.Gates[0])
		}
	}
}

// A series too short for the method cannot be evaluated: never a pass.
func TestStoreHistoryGateShortSeries(t *testing.T) {
	url, rs := slowedHistory(t, 3)
	v := judgeWith(t, url, rs[2])
	if v.Outcome != CannotEvaluate || !strings.Contains(v.Gates[0].Reason, "too short to judge") {
		t.Errorf("three builds: %s %+v", v.Outcome, v.Gates[0])
	}
	if err := Validate(mustJSON(t, v)); err != nil {
		t.Errorf("verdict.json: %v", err)
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// The gate file's store series parses with its settings; the defaults
// fill what it leaves out.
func TestParseStoreSeries(t *testing.T) {
	f, err := Parse("g.yaml", []byte("baseline:\n  history: {series: auto, window: 20, url: 'postgres://h/db', p_value: 0.01, min_magnitude: 0.05}\ngates: []\n"))
	if err != nil {
		t.Fatal(err)
	}
	b := f.Baseline
	if !b.FromStore() || b.Window != 20 || b.URL != "postgres://h/db" || b.PValue != 0.01 || b.MinMagnitude != 0.05 || b.Line != 2 {
		t.Errorf("baseline %+v", b)
	}
}
