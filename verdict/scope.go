package verdict

import (
	"strings"

	"github.com/ybbench/ybbench/collect"
	"github.com/ybbench/ybbench/internal/profiles"
)

// familyOperations are the measurement names each family's agent records
// (its engine's catalog, less CLEANUP, the agent's own). ybbench links no
// engine, so they are written here; a test holds them to the catalogs.
var familyOperations = map[string][]string{
	"ycsb":     {"READ", "UPDATE", "INSERT", "SCAN", "DELETE", "READ-MODIFY-WRITE", "VERIFY"},
	"sysbench": {"EVENT"},
	"kv":       {"Read", "Write"},
}

// ScopeOf is what a gate file for profile p may name.
func ScopeOf(p *profiles.Profile) Scope {
	s := Scope{Profile: p.Name, Workloads: p.Workloads, Operations: familyOperations[p.Family]}
	if len(p.Baseline.Rows) == 0 {
		s.Why = "it has none"
		return s
	}
	ok, bad := p.Baseline.Consistent(collect.LittlesLawTolerance)
	s.PublishedUsable, s.Why = ok, strings.Join(bad, "; ")
	return s
}
