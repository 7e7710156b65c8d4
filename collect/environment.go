package collect

import (
	"sort"
	"strconv"
	"strings"
)

// sharedMachineOf says whether the run's hosts shared one machine: every
// host is marked Shared in cluster.json (the local provider's namespaces
// share this machine's kernel, filesystem and CPUs). Its core count is
// what the preflight read on those hosts (they all see the machine's),
// else the orchestrator's own count, recorded in setup.json on the same
// machine.
func sharedMachineOf(hosts []Host, orchestratorCPUs int) *SharedMachine {
	if len(hosts) == 0 {
		return nil
	}
	cpus := 0
	for _, h := range hosts {
		if !h.Shared {
			return nil
		}
		if n, err := strconv.Atoi(h.Facts["cpus"]); err == nil && n > cpus {
			cpus = n
		}
	}
	if cpus == 0 {
		cpus = orchestratorCPUs
	}
	return &SharedMachine{Hosts: len(hosts), CPUs: cpus}
}

// preflightWarningsOf lists the preflight's warnings of every host, the
// cluster's hosts in their order first, then any other in name order
// (hosts.json keeps them joined by "; " per host).
func preflightWarningsOf(facts map[string]map[string]string, cluster []Host) []string {
	var hosts, rest []string
	known := map[string]bool{}
	for _, h := range cluster {
		if _, ok := facts[h.Name]; ok && !known[h.Name] {
			hosts = append(hosts, h.Name)
			known[h.Name] = true
		}
	}
	for h := range facts {
		if !known[h] {
			rest = append(rest, h)
		}
	}
	sort.Strings(rest)
	hosts = append(hosts, rest...)
	var out []string
	for _, h := range hosts {
		for _, w := range strings.Split(facts[h]["warnings"], "; ") {
			if w = strings.TrimSpace(w); w != "" {
				out = append(out, w)
			}
		}
	}
	return out
}

// within reports whether a Little's-law figure is within tolerance of 1.
func within(v, tolerance float64) bool { return v >= 1-tolerance && v <= 1+tolerance }
