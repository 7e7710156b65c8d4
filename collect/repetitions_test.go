package collect_test

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/ybbench/ybbench/collect"
	"github.com/ybbench/ybbench/internal/golden"
	"github.com/ybbench/ybbench/profiles"
)

// A run of 3 repetitions (--repeat 3) keeps each one's phases and
// figures, takes the median one's as the workload's, and gives every
// figure's spread. The fixture's repetitions measured 1000, 1020 and 990
// operations per measurement over 60 s, so their throughputs are known
// beforehand; the result and the report it renders are pinned as
// testdata/repeat3.result.json and testdata/repeat3.report.md.
func TestAggregateRepetitions(t *testing.T) {
	p, err := profiles.Get("ycsb-ysql")
	if err != nil {
		t.Fatal(err)
	}
	site := localPostgresSite
	site.repetitions = 3
	site.parameters = map[string]string{}
	for k, v := range localPostgresSite.parameters {
		site.parameters[k] = v
	}
	site.parameters["repeat"] = "3"
	dir := t.TempDir()
	writeFixtureRunAt(t, dir, p, site)
	res, err := collect.Aggregate(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := collect.ValidateResult(res); err != nil {
		t.Fatal(err)
	}
	for _, wr := range res.Workloads {
		ops := len(fixtureOps(p, wr.Name)) // operations per measurement: READ, UPDATE, …
		want := []float64{}
		for k := 1; k <= 3; k++ {
			want = append(want, float64(ops*repetitionOps[k])/60)
		}
		if len(wr.Repetitions) != 3 {
			t.Fatalf("%s: %d repetitions, want 3", wr.Name, len(wr.Repetitions))
		}
		for i, r := range wr.Repetitions {
			if r.Index != i+1 || math.Abs(r.Throughput-want[i]) > 1e-6 || len(r.Phases) != 2 || r.CPU["db-1"].Percent == 0 {
				t.Errorf("%s: repetition %d: index %d, throughput %v (want %v), %d phases, CPU %v", wr.Name, i+1, r.Index, r.Throughput, want[i], len(r.Phases), r.CPU)
			}
		}
		// 990 < 1000 < 1020: the first repetition is the median.
		if wr.MedianRepetition != 1 || wr.Throughput != wr.Repetitions[0].Throughput {
			t.Errorf("%s: median repetition %d with throughput %v, want 1 with %v", wr.Name, wr.MedianRepetition, wr.Throughput, want[0])
		}
		sp := wr.FindSpread("", "throughput")
		if sp == nil {
			t.Fatalf("%s: no throughput spread", wr.Name)
		}
		mean := (want[0] + want[1] + want[2]) / 3
		var ss float64
		for _, v := range want {
			ss += (v - mean) * (v - mean)
		}
		cv := math.Sqrt(ss/2) / mean
		if sp.Median != want[0] || sp.Min != want[2] || sp.Max != want[1] || math.Abs(sp.CV-cv) > 1e-9 || sp.Unit != "ops/s" {
			t.Errorf("%s: throughput spread %+v, want median %v, range %v–%v, CV %v", wr.Name, sp, want[0], want[2], want[1], cv)
		}
		// Every operation has every gate metric, and the workload its
		// error rate: 2 + 8 per operation.
		if len(wr.Spread) != 2+8*ops {
			t.Errorf("%s: %d spread figures, want %d", wr.Name, len(wr.Spread), 2+8*ops)
		}
	}
	b, err := json.MarshalIndent(res, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "repeat3.result.json", append(b, '\n'))
	var s strings.Builder
	if err := collect.WriteMarkdown(&s, res); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"3 repetitions; the phases below are repetition r1's", "| throughput (ops/s) | 33.3 | 33 – 34 | 1.5% | 33.3, 34, 33 |",
		"made its table afresh and loaded it again"} {
		if !strings.Contains(s.String(), want) {
			t.Errorf("report.md lacks %q", want)
		}
	}
	golden.Check(t, "repeat3.report.md", []byte(s.String()))
}

// The median of an even count is the mean of the two middle values; the
// coefficient of variation is the sample standard deviation over the
// mean, 0 for one value.
func TestSpreadOf(t *testing.T) {
	for _, c := range []struct {
		values               []float64
		median, min, max, cv float64
	}{
		{[]float64{10}, 10, 10, 10, 0},
		{[]float64{4, 1, 3, 2}, 2.5, 1, 4, math.Sqrt(5.0/3) / 2.5},
		{[]float64{2, 2, 2}, 2, 2, 2, 0},
		{[]float64{0, 0}, 0, 0, 0, 0},
	} {
		s := collect.SpreadOf("READ", "p99", c.values)
		if s.Median != c.median || s.Min != c.min || s.Max != c.max || math.Abs(s.CV-c.cv) > 1e-12 || s.Unit != "µs" || len(s.Values) != len(c.values) {
			t.Errorf("SpreadOf(%v) = %+v, want median %v range %v–%v CV %v", c.values, s, c.median, c.min, c.max, c.cv)
		}
	}
}

// A repeated KV run says that its repetitions continue on the keys the
// earlier ones wrote, in result.json's notes and so in report.md; an even
// count of repetitions takes the lower middle one as the median.
func TestAggregateRepetitionsKV(t *testing.T) {
	p, err := profiles.Get("kv-ycql")
	if err != nil {
		t.Fatal(err)
	}
	site := inventorySite
	site.repetitions = 2
	dir := t.TempDir()
	writeFixtureRunAt(t, dir, p, site)
	res, err := collect.Aggregate(dir)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, n := range res.Notes {
		found = found || strings.Contains(n, "continue on the keys the earlier ones wrote")
	}
	if !found {
		t.Errorf("notes %q do not say the KV repetitions continue on the keys", res.Notes)
	}
	for _, wr := range res.Workloads {
		// Repetitions 1 and 2 measured 1000 and 1020 operations: the lower
		// middle of two is the slower, the first; the median throughput
		// is their mean.
		sp := wr.FindSpread("", "throughput")
		if wr.MedianRepetition != 1 || sp == nil || math.Abs(sp.Median-(wr.Repetitions[0].Throughput+wr.Repetitions[1].Throughput)/2) > 1e-9 {
			t.Errorf("%s: median repetition %d, throughput spread %+v", wr.Name, wr.MedianRepetition, sp)
		}
	}
}
