package history

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/ybbench/ybbench/collect/history/changepoint"
)

// twelveBuilds are twelve runs of one profile under builds b01…b12, the
// database 30% slower from b08 on, with 2% noise of a fixed seed.
func twelveBuilds(t *testing.T) []*Entry {
	t.Helper()
	rng := rand.New(rand.NewPCG(7, 8))
	parent := t.TempDir()
	var es []*Entry
	for i := 1; i <= 12; i++ {
		scale := 1.0
		if i >= 8 {
			scale = 0.7
		}
		scale *= 1 + 0.02*rng.NormFloat64()
		// Recorded out of build order: the series orders by build time.
		at := time.Unix(1_800_000_000+int64(13-i)*60, 0)
		e := entryOf(t, parent, fmt.Sprintf("run-%02d", i), at, fmt.Sprintf("b%02d", i), scale)
		e.Build.Time = time.Unix(1_700_000_000+int64(i)*3600, 0)
		es = append(es, e)
	}
	return es
}

// The series of a history, each in build order; the method finds the
// slow-down at build b08 in the workload's throughput, says it worsened
// it, and its interval holds the 30% put in.
func TestSeriesAndChangePoint(t *testing.T) {
	all := SeriesOf(twelveBuilds(t))
	if len(all) != 3 {
		t.Fatalf("%d series, want the workload, READ and UPDATE", len(all))
	}
	ws, err := Match(all, "ycsb-ysql/workloada")
	if err != nil || len(ws) != 1 {
		t.Fatalf("match: %v %v", ws, err)
	}
	s := ws[0]
	for i, p := range s.Points {
		if want := fmt.Sprintf("b%02d", i+1); p.Build.ID != want {
			t.Fatalf("point %d is build %s, want %s", i, p.Build.ID, want)
		}
	}
	a, err := Analyze(s, "throughput", changepoint.DefaultSettings())
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Change) != 1 {
		t.Fatalf("changes %+v", a.Change)
	}
	c := a.Change[0]
	if c.FirstBad.ID != "b08" || c.LastGood.ID != "b07" || !c.Worse || c.ChangeLow > -0.3 || c.ChangeHigh < -0.3 || c.PValue >= 0.001 {
		t.Errorf("change %+v", c)
	}
	p99, err := Analyze(ws[0], "error_rate", changepoint.DefaultSettings())
	if err != nil || len(p99.Change) != 0 {
		t.Errorf("error rate, never changed: %+v %v", p99, err)
	}
	if short, _ := Analyze(s.Last(3), "throughput", changepoint.DefaultSettings()); short.Short == "" || len(short.Change) != 0 {
		t.Errorf("three points: %+v", short)
	}
}

// A pattern names series by id (four characters or more) or path; one
// that names none says how many there are.
func TestMatch(t *testing.T) {
	all := SeriesOf(twelveBuilds(t))
	if ss, err := Match(all, all[1].ID[:6]); err != nil || len(ss) != 1 || ss[0] != all[1] {
		t.Errorf("by id: %v %v", ss, err)
	}
	if ss, err := Match(all, "ycsb-ysql/workloada/*"); err != nil || len(ss) != 2 {
		t.Errorf("by path: %v %v", ss, err)
	}
	if _, err := Match(all, "sysbench-ysql/*"); err == nil || !strings.Contains(err.Error(), "matches none of the store's 3 series") {
		t.Errorf("no match: %v", err)
	}
}
