package profiles

import (
	"fmt"
	"math"
)

// Baseline is a profile's published results table (the seed's "expected
// results"), with what each column is compared with.
type Baseline struct {
	// Source names the document and where the table is in it.
	Source string `yaml:"source" json:"source"`
	// Setup is the hardware and data size the figures were taken on.
	Setup string `yaml:"setup" json:"setup"`
	// Threads is the client concurrency the figures were taken with.
	Threads int           `yaml:"threads" json:"threads"`
	Rows    []BaselineRow `yaml:"rows" json:"rows"`
	// Repetitions and Tolerance (percent) are what the reproduction
	// verdict asks of a run before it calls a row reproduced (0: its
	// defaults, 5 and 5%).
	Repetitions int     `yaml:"repetitions,omitempty" json:"repetitions,omitempty"`
	Tolerance   float64 `yaml:"tolerance,omitempty" json:"tolerance,omitempty"`
}

// BaselineRow is one workload's published figures.
type BaselineRow struct {
	Workload string `yaml:"workload" json:"workload"`
	// Throughput in operations (or transactions) per second.
	Throughput float64 `yaml:"throughput" json:"throughput"`
	// Latencies are the published latency columns.
	Latencies []Published `yaml:"latencies" json:"latencies"`
	// Mix is the share of outer operations per measurement name, for the
	// Little's-law check of the published row itself.
	Mix map[string]float64 `yaml:"mix" json:"mix"`
	// CPU is a published node CPU figure (percent user+sys), if any.
	CPU float64 `yaml:"cpu,omitempty" json:"cpu,omitempty"`
	// Threads overrides the table's thread count for this row.
	Threads int `yaml:"threads,omitempty" json:"threads,omitempty"`
	// UnitsPerOp is how many counted operations one latency sample stands
	// for (keys per batch); throughput counts units.
	UnitsPerOp float64 `yaml:"units_per_op,omitempty" json:"units_per_op,omitempty"`
}

// Published is one latency column of a published row.
type Published struct {
	Label string  `yaml:"label" json:"label"` // the column as published ("Read Latency")
	Op    string  `yaml:"op" json:"op"`       // our measurement name it maps to
	MS    float64 `yaml:"ms" json:"ms"`
	// Statistic is what the published figure is, and so what it is compared
	// with: "mean" (YCSB's and the KV tool's figures) or "p95".
	Statistic string `yaml:"statistic" json:"statistic"`
}

// LittlesLaw is threads ÷ (throughput × mean latency) for a row: ≈ 1 for a
// closed loop that measured what it says. It needs the row's mix.
func (r *BaselineRow) LittlesLaw(threads int) (float64, error) {
	if len(r.Mix) == 0 {
		return 0, fmt.Errorf("%s: no operation mix to check the published row with", r.Workload)
	}
	var mean float64 // seconds
	for op, share := range r.Mix {
		found := false
		for _, l := range r.Latencies {
			if l.Op == op {
				mean += share * l.MS / 1000
				found = true
				break
			}
		}
		if !found {
			return 0, fmt.Errorf("%s: no published latency for %s", r.Workload, op)
		}
	}
	threads = r.ThreadsOf(threads)
	rate := r.Throughput
	if r.UnitsPerOp > 1 {
		rate /= r.UnitsPerOp // Little's law per batch
	}
	return float64(threads) / (rate * mean), nil
}

// ThreadsOf is the row's thread count: its own, else the table's.
func (r *BaselineRow) ThreadsOf(table int) int {
	if r.Threads > 0 {
		return r.Threads
	}
	return table
}

// LittlesLawTolerance is how far from 1 a published row's threads ÷
// (throughput × mean latency) may be for its table to count as consistent.
const LittlesLawTolerance = 0.3

// Consistent reports whether every row satisfies Little's law within a
// tolerance: only a consistent table may gate a release.
func (b *Baseline) Consistent(tolerance float64) (bool, []string) {
	var bad []string
	for i := range b.Rows {
		v, err := b.Rows[i].LittlesLaw(b.Threads)
		if err != nil {
			bad = append(bad, err.Error())
			continue
		}
		if math.Abs(v-1) > tolerance {
			bad = append(bad, fmt.Sprintf("%s: threads ÷ (throughput × mean latency) = %.2f", b.Rows[i].Workload, v))
		}
	}
	return len(bad) == 0, bad
}

// Row returns the published row of a workload.
func (b *Baseline) Row(workload string) *BaselineRow {
	if b == nil {
		return nil
	}
	for i := range b.Rows {
		if b.Rows[i].Workload == workload {
			return &b.Rows[i]
		}
	}
	return nil
}
