package pipeline

import (
	"slices"

	"github.com/ybbench/ybbench/profiles"
)

// familyParameters are the settings that override a parameter each
// profile family's agents read: a YCSB run has no warm-up, sysbench has no
// operation count or load threads (its prepare is not timed), and the KV
// tool runs each workload's own thread counts for a time, with no table to
// load. A test checks this against the agents' command lines.
var familyParameters = map[string][]string{
	"ycsb":     {"records", "operations", "load_threads", "threads", "duration"},
	"sysbench": {"records", "threads", "duration", "warmup"},
	"kv":       {"threads", "duration"},
}

// Uses reports whether a profile's agents read the parameter a setting
// overrides (records, operations, load_threads, threads, duration, warmup).
func Uses(p *profiles.Profile, setting string) bool {
	return slices.Contains(familyParameters[p.Family], setting)
}

// profileUses is a preset's condition: the spec's profile uses the
// setting (an unknown profile is left to validation to refuse).
func profileUses(setting string) func(*Spec) bool {
	return func(s *Spec) bool {
		p, err := profiles.Get(s.Profile)
		return err != nil || Uses(p, setting)
	}
}
