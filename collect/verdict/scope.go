package verdict

import (
	"strings"

	"github.com/ybbench/ybbench/profiles"
	"github.com/ybbench/ybbench/record"
)

// ScopeOf is what a gate file for profile p may name.
func ScopeOf(p *profiles.Profile) Scope {
	s := Scope{Profile: p.Name, Workloads: p.Workloads, Operations: record.FamilyOperations[p.Family]}
	if len(p.Baseline.Rows) == 0 {
		s.Why = "it has none"
		return s
	}
	ok, bad := p.Baseline.Consistent(profiles.LittlesLawTolerance)
	s.PublishedUsable, s.Why = ok, strings.Join(bad, "; ")
	return s
}
