package collect_test

import (
	"math"
	"strings"
	"testing"

	"github.com/ybbench/ybbench/collect"
)

// Little's law of a phase whose latencies were all below the histograms'
// 1 µs resolution (the agent's null binding) is no figure: not +Inf,
// which result.json could not hold. A measurable mean still gives one.
func TestSanityOfSubMicrosecondLatencies(t *testing.T) {
	for name, sanity := range map[string]func(*collect.PhaseResult) (float64, string){
		"ycsb": collect.YCSBSanity, "one sample per operation": collect.OneSampleSanity} {
		for _, c := range []struct {
			meanUS float64
			want   float64
		}{{0, 0}, {10, 1}} {
			// 1 thread, 200 operations in 2 ms: 100000 ops/s; at 10 µs each
			// that is 1 thread busy all the time.
			p := &collect.PhaseResult{Threads: 1, Ops: 200, Throughput: 100000, WindowMS: 2, Measurements: []collect.MeasurementResult{
				{Name: "READ", Count: 200, Latency: collect.LatencySummary{Mean: c.meanUS}}}}
			v, text := sanity(p)
			if math.Abs(v-c.want) > 1e-9 || math.IsInf(v, 0) || (c.meanUS == 0) != strings.Contains(text, "not computed") {
				t.Errorf("%s, mean %v µs: %v %q; want %v", name, c.meanUS, v, text, c.want)
			}
		}
	}
}
