//go:build integration

package collect_test

import (
	"bytes"
	"encoding/csv"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ybbench/ybbench/record/hist"

	"github.com/ybbench/ybbench/collect"
	"github.com/ybbench/ybbench/internal/testenv"
)

// Java HdrHistogram's own HistogramLogProcessor reads every log the
// collector wrote: the tags it lists are the operations, and per tag
// (-tag <op>) its overall count equals a recount of the measured raw
// values and its p50/p90/p99/p99.9/max equal the agent's merged records'
// within HDR precision.
func TestIntegrationHDRLogJava(t *testing.T) {
	hdr := testenv.HdrHistogramFor(t)
	fx := writeHDRFixture(t)
	paths, err := collect.WriteHDRLogs(fx.dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) != 6 {
		t.Fatalf("wrote %d logs, want 6: %v", len(paths), paths)
	}
	processor := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(hdr.Java, append([]string{"-cp", hdr.Jar, "org.HdrHistogram.HistogramLogProcessor"}, args...)...)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("HistogramLogProcessor %v: %v\n%s", args, err, stderr.String())
		}
		return string(out)
	}
	checked, compared := 0, 0
	for _, series := range []struct {
		raw  map[string]map[string]map[string][]int64
		name func(agent, workload, phase string) string
		of   func(*collect.Measurement) *hist.Hist
	}{
		{fx.raw, collect.HDRLogName, func(m *collect.Measurement) *hist.Hist { return m.Service }},
		{fx.resp, collect.HDRResponseLogName, func(m *collect.Measurement) *hist.Hist { return m.Response }},
	} {
		for agent, phases := range series.raw {
			for phase, ops := range phases {
				if len(ops) == 0 {
					continue
				}
				path := filepath.Join(fx.dir, collect.HDRDir, series.name(agent, "workloada", phase))
				var tags []string
				for _, l := range strings.Split(processor("-i", path, "-listtags"), "\n") {
					if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "Tags found") {
						tags = append(tags, l)
					}
				}
				slices.Sort(tags)
				if want := keys(ops); !slices.Equal(tags, want) {
					t.Errorf("%s: Java lists tags %v, want %v", path, tags, want)
				}
				rf := readRecordFile(t, filepath.Join(fx.dir, "agents", agent, "workloada-"+phase+".jsonl"))
				merged, err := collect.Merge([]collect.AgentFile{{Host: agent, File: rf}})
				if err != nil {
					t.Fatal(err)
				}
				for op, raw := range ops {
					out := filepath.Join(t.TempDir(), "out")
					// Values are µs; a ratio of 1 prints them as they are.
					processor("-i", path, "-tag", op, "-csv", "-outputValueUnitRatio", "1", "-o", out)
					total := lastTotals(t, out)
					if got := int64(total["Total_Count"]); got != int64(len(raw)) {
						t.Errorf("%s %s: Java counts %d, the measured ticks had %d", path, op, got, len(raw))
					}
					rec := series.of(merged.Find(op))
					sorted := slices.Sorted(slices.Values(raw))
					for col, p := range map[string]float64{"Total_50%": 50, "Total_90%": 90, "Total_99%": 99, "Total_99.9%": 99.9, "Total_Max": 100} {
						got := int64(total[col])
						if exact := ceilRank(sorted, p); !rec.Equivalent(got, exact) {
							t.Errorf("%s %s %s: Java says %d µs, the raw values' (rank rounded up) is %d µs", path, op, col, got, exact)
						}
						// The summaries round the rank to the nearest
						// (Java HdrHistogram 2.1.4's rule, YCSB's); 2.2
						// rounds it up. Where the two ranks are one value,
						// the figures agree.
						if ceilRank(sorted, p) != nearestRank(sorted, p) {
							continue
						}
						compared++
						if want := rec.Percentile(p); !rec.Equivalent(got, want) {
							t.Errorf("%s %s %s: Java says %d µs, the agent's records %d µs", path, op, col, got, want)
						}
					}
					checked++
				}
			}
		}
	}
	// 2 agents × (load INSERT, run READ and UPDATE, run's response READ and UPDATE).
	if checked != 10 {
		t.Errorf("checked %d tags, want 10", checked)
	}
	// Every tag's max and most medians are compared with the records.
	if compared < checked {
		t.Errorf("compared %d figures with the agents' records, want at least %d", compared, checked)
	}
	t.Logf("%d tags read by Java HdrHistogram; %d figures compared with the agents' records", checked, compared)
}

// ceilRank is the value at percentile p of sorted values by Java
// HdrHistogram 2.2's rule: the rank p% of the count rounded up (at least 1).
func ceilRank(sorted []int64, p float64) int64 {
	rank := int(math.Ceil(math.Nextafter(p, math.Inf(-1)) / 100 * float64(len(sorted))))
	rank = max(rank, 1)
	return sorted[min(rank, len(sorted))-1]
}

// lastTotals is the last row of HistogramLogProcessor's interval CSV,
// by column: its Total_* columns cover every interval of the tag.
func lastTotals(t *testing.T, path string) map[string]float64 {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, l := range strings.Split(string(b), "\n") {
		if l != "" && !strings.HasPrefix(l, "#") {
			lines = append(lines, l)
		}
	}
	if len(lines) < 2 {
		t.Fatalf("%s: no interval rows:\n%s", path, b)
	}
	rows, err := csv.NewReader(strings.NewReader(lines[0] + "\n" + lines[len(lines)-1] + "\n")).ReadAll()
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	out := map[string]float64{}
	for i, name := range rows[0] {
		v, err := strconv.ParseFloat(rows[1][i], 64)
		if err != nil {
			t.Fatalf("%s: %s=%q: %v", path, name, rows[1][i], err)
		}
		out[name] = v
	}
	for _, c := range []string{"Total_Count", "Total_50%", "Total_90%", "Total_99%", "Total_99.9%", "Total_Max"} {
		if _, ok := out[c]; !ok {
			t.Fatalf("%s: no column %s in %v", path, c, rows[0])
		}
	}
	return out
}
