package collect

import "fmt"

// figures are one profile family's own figures of its measured phase: what
// the published throughput is compared with, and the Little's-law line.
// They are computed here, from the merged phase, so that result.json holds
// them and the report needs nothing else.
type figures struct {
	// basis says what throughput counts.
	basis      string
	throughput func(p *PhaseResult) float64
	sanity     func(p *PhaseResult) (float64, string)
}

// familyFigures returns a family's figures (ycsb, sysbench, kv).
func familyFigures(family string) (figures, error) {
	switch family {
	case "ycsb":
		return figures{basis: "operations per second, the agents' own rates summed",
			throughput: func(p *PhaseResult) float64 { return p.Throughput }, sanity: YCSBSanity}, nil
	case "sysbench":
		return figures{basis: "events per second, the agents' own rates summed",
			throughput: func(p *PhaseResult) float64 { return p.Throughput }, sanity: OneSampleSanity}, nil
	case "kv":
		return figures{basis: "keys per second over the measured window (a batch counts its keys)",
			throughput: kvThroughput, sanity: OneSampleSanity}, nil
	}
	return figures{}, fmt.Errorf("unknown profile family %q", family)
}

// kvThroughput counts keys, as the KV tool does (a batch counts its keys).
func kvThroughput(p *PhaseResult) float64 {
	var units int64
	for _, m := range p.Measurements {
		if m.Name == "CLEANUP" {
			continue
		}
		u := m.Units
		if u == 0 {
			u = m.Count
		}
		units += u
	}
	if p.WindowMS <= 0 {
		return 0
	}
	return float64(units) / (float64(p.WindowMS) / 1000)
}
