// Package bottleneck says what limited a measured phase: the client, the
// database's CPU or disk, the network, the run's own target rate, or
// nothing saturated (the threads' concurrency, as Little's law shows),
// from the counters every host was read for each tick (record/hostcpu)
// and the phase's own figures. Its rules and their thresholds live here
// only; the reports print them, and a spec may change them (limit_rules).
package bottleneck

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// The verdicts, one per measured phase.
const (
	Client       = "client"
	DatabaseCPU  = "database-cpu"
	DatabaseDisk = "database-disk"
	Network      = "network"
	Concurrency  = "concurrency"
	Target       = "target"
	Unknown      = "unknown"
)

// Verdicts lists them in the order the rules are tried.
var Verdicts = []string{Target, Client, DatabaseCPU, DatabaseDisk, Network, Concurrency, Unknown}

// Rules are the thresholds, in percent, each rule fires at, and the hosts'
// link capacity (0: not stated, so the network rule cannot fire).
type Rules struct {
	// ClientCPU: a client's agent processes used this share of the cores
	// they may use (their affinity and CPU quota), or a client with a
	// kernel of its own was this busy.
	ClientCPU float64 `json:"client_cpu"`
	// DatabaseCPU: a db host's database processes used this share of the
	// cores they may use, or the host (or the machine local hosts share)
	// was this busy.
	DatabaseCPU float64 `json:"database_cpu"`
	// DiskUtil: a db host's busiest disk had I/O in flight this share of
	// the time (/proc/diskstats io_ticks).
	DiskUtil float64 `json:"disk_util"`
	// Link: an interface carried this share of LinkGbps in one direction.
	Link     float64 `json:"link"`
	LinkGbps float64 `json:"link_gbps,omitempty"`
	// Target: an open-model run achieved this share of its target rate.
	Target float64 `json:"target"`
	// Late: more than this share of an open-model run's operations
	// started late, so its agent had no free worker when one was due.
	Late float64 `json:"late"`
	// Throttled: the agent's or the database's processes ran out of their
	// cgroup's CPU quota in this share of its periods. A group held by
	// its quota gets less CPU time than the quota (a period's unused
	// slices are lost), so its share of the cores alone can miss it. 0 in
	// rules written before it existed (a run's setup.json, a result): the
	// rule is then not applied, as it was not when they were written.
	Throttled float64 `json:"throttled"`
}

// Default are the rules a run uses unless its spec says otherwise: a
// resource counts as saturated at 90% (a sampled second at 100% is rare
// even when a queue forms), a target as reached at 99% of it, workers as
// saturated past 1% late starts, and a CPU quota as the limit when it ran
// out in half its periods (a group with spare quota runs out of it
// seldom; one held by it, in nearly every period).
func Default() Rules {
	return Rules{ClientCPU: 90, DatabaseCPU: 90, DiskUtil: 90, Link: 90, Target: 99, Late: 1, Throttled: 50}
}

// ruleFields maps the spec's names (limit_rules) onto the rules' fields.
func ruleFields(r *Rules) map[string]*float64 {
	return map[string]*float64{"client_cpu": &r.ClientCPU, "database_cpu": &r.DatabaseCPU, "disk_util": &r.DiskUtil,
		"link": &r.Link, "link_gbps": &r.LinkGbps, "target": &r.Target, "late": &r.Late, "throttled": &r.Throttled}
}

// Names are the names a spec's limit_rules may give, sorted.
func Names() []string {
	var out []string
	for k := range ruleFields(&Rules{}) {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// String is the rules as limit_rules would give them, by name, leaving out
// the ones at 0 (link_gbps unless stated): the settings' documented default
// is Default().String(), so that it cannot drift from the code.
func (r Rules) String() string {
	fields := ruleFields(&r)
	var parts []string
	for _, k := range Names() {
		if v := *fields[k]; v != 0 {
			parts = append(parts, fmt.Sprintf("%s=%g", k, v))
		}
	}
	return strings.Join(parts, ",")
}

// Parse applies a spec's limit_rules to the defaults; an error names the
// rule and says what it must be.
func Parse(m map[string]string) (Rules, error) {
	r := Default()
	fields := ruleFields(&r)
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		f, ok := fields[k]
		if !ok {
			return r, fmt.Errorf("limit_rules: %q is no rule (the rules: %s)", k, strings.Join(Names(), ", "))
		}
		v, err := strconv.ParseFloat(strings.TrimSpace(m[k]), 64)
		switch {
		case err != nil:
			return r, fmt.Errorf("limit_rules: %s=%q is not a number", k, m[k])
		case k == "link_gbps" && v <= 0:
			return r, fmt.Errorf("limit_rules: link_gbps=%s must be above 0", m[k])
		case k != "link_gbps" && (v <= 0 || v > 100):
			return r, fmt.Errorf("limit_rules: %s=%s must be a percent in (0, 100]", k, m[k])
		}
		*f = v
	}
	return r, nil
}

// Text is the rules as the reports print them, in the order they are tried.
func (r Rules) Text() []string {
	link := fmt.Sprintf("an interface carried ≥ %g%% of the link's %g Gbit/s in one direction", r.Link, r.LinkGbps)
	if r.LinkGbps <= 0 {
		link = "not applied: no link capacity stated (limit_rules link_gbps=N)"
	}
	var itsQuota, theirQuota string
	if r.Throttled > 0 {
		itsQuota = fmt.Sprintf(", or ran out of its CPU quota in ≥ %g%% of its periods", r.Throttled)
		theirQuota = fmt.Sprintf(", or ran out of their CPU quota in ≥ %g%% of its periods", r.Throttled)
	}
	return []string{
		fmt.Sprintf("%s: an open-model run achieved ≥ %g%% of its target rate", Target, r.Target),
		fmt.Sprintf("%s: a client's agent used ≥ %g%% of the cores it may use%s, or a client with its own kernel was ≥ %g%% busy, or more than %g%% of an open-model run's operations started late with nothing else saturated", Client, r.ClientCPU, itsQuota, r.ClientCPU, r.Late),
		fmt.Sprintf("%s: a db host's database processes used ≥ %g%% of the cores they may use%s, or the host (or the machine local hosts share, mostly for the database) was ≥ %g%% busy", DatabaseCPU, r.DatabaseCPU, theirQuota, r.DatabaseCPU),
		fmt.Sprintf("%s: a db host's busiest disk had I/O in flight ≥ %g%% of the time", DatabaseDisk, r.DiskUtil),
		fmt.Sprintf("%s: %s", Network, link),
		fmt.Sprintf("%s: none of the above: throughput is the threads ÷ their latency (Little's law)", Concurrency),
		fmt.Sprintf("%s: a host's counters are missing or were not read", Unknown),
	}
}
