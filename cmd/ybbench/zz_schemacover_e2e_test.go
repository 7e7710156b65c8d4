//go:build e2e

package main

import (
	"strings"
	"testing"
)

// unwrittenHere are the fields of result.schema.json that no run of the
// e2e tier can write, each with why. Every other field is written by at
// least one real run of the tier, and validated there (checkSchema).
var unwrittenHere = map[string]string{
	"$.workloads[].repetitions[].phases[].measurements[].late":              repeatedPaced,
	"$.workloads[].repetitions[].phases[].measurements[].response_us":       repeatedPaced,
	"$.workloads[].repetitions[].phases[].measurements[].response_us.max":   repeatedPaced,
	"$.workloads[].repetitions[].phases[].measurements[].response_us.mean":  repeatedPaced,
	"$.workloads[].repetitions[].phases[].measurements[].response_us.min":   repeatedPaced,
	"$.workloads[].repetitions[].phases[].measurements[].response_us.p50":   repeatedPaced,
	"$.workloads[].repetitions[].phases[].measurements[].response_us.p95":   repeatedPaced,
	"$.workloads[].repetitions[].phases[].measurements[].response_us.p99":   repeatedPaced,
	"$.workloads[].repetitions[].phases[].measurements[].response_us.p99_9": repeatedPaced,
	"$.workloads[].repetitions[].phases[].schedule":                         repeatedPaced,
	"$.workloads[].repetitions[].phases[].measurements[].units":             "a repeated KV batch run; the tier repeats a YCSB profile (a single KV batch run writes units)",
	"$.workloads[].repetitions[].phases[].problems":                         "a repeated run with a record file that cannot be read; the tier's broken runs are not repeated",
	"$.workloads[].repetitions[].problems":                                  "as repetitions[].phases[].problems",
	"$.workloads[].problems":                                                "a workload whose agents' files collect cannot read (collect's unit tests); every run of the tier reads cleanly, and the sweep tests fail on a problem (a sysbench prepare's DDL that did not parse was, until fixed, the only one)",
	"$.baseline.repetitions":                                                "a profile whose table asks its own number of repetitions; the built-in ones take the default (5)",
	"$.baseline.tolerance":                                                  "a profile whose table gives its own tolerance; the built-in ones take the default (5%)",
	"$.workloads[].limit.rules.link_gbps":                                   linkStated,
	"$.workloads[].repetitions[].limit.rules.link_gbps":                     linkStated,
	"$.workloads[].repetitions[].limit.hosts[].throttled_percent":           "a repeated run under a CPU quota; the tier's runs held by one (TestE2ELimitAttribution, TestE2EHistoryRegression) are not repeated",
	"$.workloads[].sweep_agreement.problem":                                 "a repeated sweep that found no knee; the tier's test of two sweeps fails on one",
	"$.reproduction.rows[].worst":                                           "a comparable row that was not reproduced: comparable rows need the published hardware and database, never a local run",
}

// sweepKnee: a sweep whose lowest step held its target within the SLO.
const sweepKnee = "a sweep whose lowest step held its target within the SLO"

// linkStated: the hosts' link capacity, which only a spec's limit_rules
// states (link_gbps); no run of the tier states one.
const linkStated = "a run whose limit_rules state the hosts' link capacity (link_gbps); the tier's runs state none"

// whenItHappens are the fields a run writes only when something it does
// not choose happens: a late start, a latency past the histograms' range,
// a machine's limits, CPU time that rounds to zero. The tier need not
// write them, and may.
var whenItHappens = map[string]string{
	"$.preflight_warnings":                                                     "the machine's limits (ulimits) below the recommended",
	"$.workloads[].phases[].measurements[].late":                               "a paced operation that started late",
	"$.workloads[].repetitions[].phases[].measurements[].late":                 "a paced operation of a repetition that started late",
	"$.workloads[].phases[].measurements[].latency_us.overflow":                "a latency above the histograms' highest trackable value",
	"$.workloads[].phases[].measurements[].response_us.overflow":               "a response time above the histograms' highest trackable value",
	"$.workloads[].repetitions[].phases[].measurements[].latency_us.overflow":  "as latency_us.overflow, in a repetition",
	"$.workloads[].repetitions[].phases[].measurements[].response_us.overflow": "as response_us.overflow, in a repetition",
	"$.workloads[].sweep.problems":                                             "a sweep cut off before its last step",
	"$.workloads[].sweep.knee":                                                 sweepKnee,
	"$.workloads[].sweep.knee.target_ops_per_sec":                              sweepKnee,
	"$.workloads[].sweep.knee.achieved_ops_per_sec":                            sweepKnee,
	"$.workloads[].sweep.knee.p99_us":                                          sweepKnee,
	"$.workloads[].sweep.knee.step":                                            sweepKnee,
	"$.workloads[].sweep.knee.below_step":                                      "a knee above the lowest step",
	"$.workloads[].sweep.knee.above_step":                                      "a sweep that broke above its knee",
	"$.workloads[].sweep.knee.confirmed":                                       sweepKnee,
	"$.workloads[].sweep.max_sustainable_throughput":                           sweepKnee,
	"$.workloads[].sweep.knee_range":                                           sweepKnee,
	"$.workloads[].sweep.knee_range.low_ops_per_sec":                           sweepKnee,
	"$.workloads[].sweep.knee_range.high_ops_per_sec":                          sweepKnee,
	"$.workloads[].sweep.steps[].extended":                                     "a step whose p99 moved between its halves",
	"$.workloads[].sweep.steps[].stopped":                                      "a sysbench step whose event queue filled",
	"$.workloads[].repetitions[].sweep.problems":                               "as sweep.problems, in a repetition",
	"$.workloads[].repetitions[].sweep.knee.below_step":                        "as sweep.knee.below_step, in a repetition",
	"$.workloads[].repetitions[].sweep.steps[].extended":                       "as sweep.steps[].extended, in a repetition",
	"$.workloads[].repetitions[].sweep.steps[].stopped":                        "as sweep.steps[].stopped, in a repetition",
	"$.workloads[].limit.hosts[].whole_phase":                                  "fewer than two readings of a host inside the measured window",
	"$.workloads[].repetitions[].limit.hosts[].whole_phase":                    "as limit.hosts[].whole_phase, in a repetition",
	"$.workloads[].cpu.*.cpu_seconds":                                          "database processes' CPU time that rounds to zero is left out",
	"$.workloads[].cpu.*.cpu_seconds_at_end":                                   "as cpu_seconds",
	"$.workloads[].repetitions[].cpu.*.cpu_seconds":                            "as cpu_seconds, in a repetition",
	"$.workloads[].repetitions[].cpu.*.cpu_seconds_at_end":                     "as cpu_seconds, in a repetition",
}

// repeatedPaced: the fields of a repeated run paced by a target rate; the
// tier's repeated run is closed-loop (a single paced run writes the same
// fields of its phases).
const repeatedPaced = "a repeated run paced by a target rate; the tier's repeated run is closed-loop, and a single paced run writes these fields of its phase"

// TestE2EZResultSchemaCovered runs after the tier's other tests (its file
// sorts last): every field result.schema.json declares was in the
// result.json of a real run of this tier (every family, repeats, several
// clients, a failed and an interrupted workload), but for unwrittenHere
// and whenItHappens; and unwrittenHere names only fields that were indeed
// never written.
func TestE2EZResultSchemaCovered(t *testing.T) {
	schemaCoverage.Lock()
	defer schemaCoverage.Unlock()
	if schemaCoverage.results == 0 {
		t.Skip("no real run's result.json was validated in this process: run the whole e2e tier")
	}
	fields := schemaFields()
	if len(fields) < 50 {
		t.Fatalf("read %d fields of result.schema.json", len(fields))
	}
	var missing []string
	for _, f := range fields {
		if _, maybe := whenItHappens[f]; maybe {
			continue
		}
		_, excused := unwrittenHere[f]
		switch {
		case !schemaCoverage.seen[f] && !excused:
			missing = append(missing, f)
		case schemaCoverage.seen[f] && excused:
			t.Errorf("%s is listed as unwritten here (%s), but a run wrote it: remove it from unwrittenHere", f, unwrittenHere[f])
		}
	}
	t.Logf("%d results validated, %d of %d schema fields written by real runs", schemaCoverage.results, len(schemaCoverage.seen), len(fields))
	if len(missing) > 0 {
		t.Errorf("%d fields of result.schema.json no real run of the tier wrote (cover them with a run, or name them in unwrittenHere with why):\n  %s",
			len(missing), strings.Join(missing, "\n  "))
	}
}
