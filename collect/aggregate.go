package collect

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
)

// Aggregate builds a run's result from its directory alone: setup.json
// (what the run was asked to measure), the agents' record files and
// summaries under agents/<host>/, the CPU figures of the measured phases,
// cluster.json, hosts.json and deployment.json. It reads nothing else,
// so the same directory always gives the same result.
//
// A directory it cannot describe (no setup.json, a file that does not
// parse) is an error with no result; a result whose measurements are
// missing or broken is returned with an error saying what.
func Aggregate(runDir string) (*Result, error) {
	var setup Setup
	ok, err := readOptional(filepath.Join(runDir, SetupFile), &setup)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, fmt.Errorf("%s: no %s: the run did not say what it measured", runDir, SetupFile)
	}
	fig, err := familyFigures(setup.Family)
	if err != nil {
		return nil, err
	}
	var cluster clusterDoc
	hasCluster, err := readOptional(filepath.Join(runDir, clusterFile), &cluster)
	if err != nil {
		return nil, err
	}
	var facts map[string]map[string]string
	if _, err := readOptional(filepath.Join(runDir, factsFile), &facts); err != nil {
		return nil, err
	}
	var dep deploymentDoc
	hasDep, err := readOptional(filepath.Join(runDir, deploymentFile), &dep)
	if err != nil {
		return nil, err
	}
	var ledger ledgerDoc
	if _, err := readOptional(filepath.Join(runDir, "run.json"), &ledger); err != nil {
		return nil, err
	}

	res := &Result{Schema: ResultSchema, RunID: setup.RunID, Profile: setup.Profile, Created: setup.Created,
		Versions: map[string]string{}, Parameters: setup.Parameters, Overridden: setup.Overridden,
		Hosts: []Host{}, Workloads: []WorkloadResult{},
		Environment: Environment{Provider: setup.Provider, Family: setup.Family, Binding: setup.Binding,
			DBHosts: setup.DBHosts, ClientHosts: setup.ClientHosts, AcceptNewHostKeys: setup.AcceptNewHostKeys, DBAuth: "on",
			PublishedProduct: setup.PublishedProduct},
		OverriddenBy: setup.OverriddenBy, Invocations: setup.Invocations, Chosen: setup.Chosen}
	if setup.DBAuth == "off" {
		res.Environment.DBAuth = "off"
	}
	for k, v := range setup.Versions {
		res.Versions[k] = v
	}
	if res.Parameters == nil {
		res.Parameters = map[string]string{}
	}
	if hasCluster {
		res.Environment.Provider = cluster.Provider
		if v := cluster.Meta["terraform_version"]; v != "" {
			res.Versions["terraform"] = v
		}
		for _, h := range cluster.Hosts {
			res.Hosts = append(res.Hosts, Host{Name: h.Name, Roles: h.Roles, InstanceType: h.InstanceType, Cloud: h.Cloud,
				Region: h.Region, Zone: h.Zone, Shared: h.Shared, HostKeySource: h.SSH.HostKeySource, Facts: facts[h.Name]})
		}
		res.Environment.SharedMachine = sharedMachineOf(res.Hosts, setup.CPUs)
	}
	res.PreflightWarnings = preflightWarningsOf(facts, res.Hosts)
	if hasDep {
		res.Database = dep.database()
		res.Database.Product = setup.DatabaseProduct
		res.Database.Settings = withoutSecretPaths(res.Database.Settings, runDir)
		res.Versions["database"] = dep.Flavor + " " + dep.Version
		if dep.Settings["auth"] == "off" {
			res.Environment.DBAuth = "off"
		}
	}
	if setup.Baseline != nil && (setup.Baseline.Source != "" || len(setup.Baseline.Rows) > 0) {
		ok, bad := setup.Baseline.Consistent(LittlesLawTolerance)
		res.Baseline = &BaselineResult{Baseline: *setup.Baseline, Consistent: ok, Inconsistencies: bad}
	}
	res.Notes = notesOf(&setup, res)

	var errs []error
	measured := 0
	var runs []workloadFiles // the measured phases' files, for how the load was spread
	for _, w := range setup.Workloads {
		cpu, err := cpuOf(runDir, w.Name)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: the db hosts' CPU: %w", w.Name, err))
		}
		wr := WorkloadResult{Name: w.Name, Phases: []PhaseResult{}, CPU: cpu}
		if res.Baseline != nil {
			wr.Published = res.Baseline.Row(w.Name)
		}
		if wr.Published != nil {
			if v, err := wr.Published.LittlesLaw(res.Baseline.Threads); err == nil {
				wr.PublishedLittlesLaw = &LittlesLaw{Threads: wr.Published.ThreadsOf(res.Baseline.Threads), Value: v,
					Tolerance: LittlesLawTolerance, Within: within(v, LittlesLawTolerance)}
			}
		}
		for _, ph := range w.Phases {
			ddl, err := ddlOf(runDir, w.Name, ph.Name)
			if err != nil {
				wr.Problems = append(wr.Problems, err.Error())
			}
			if ddl != "" && wr.DDL == "" {
				wr.DDL = ddl
			}
			if !ph.Records {
				continue
			}
			files, err := agentFiles(runDir, w.Name, ph.Name)
			if err != nil {
				errs = append(errs, err)
				wr.Problems = append(wr.Problems, err.Error())
				continue
			}
			if len(files) == 0 {
				wr.Problems = append(wr.Problems, fmt.Sprintf("no agent records for %s %s: not run, or nothing measured", w.Name, ph.Name))
				continue
			}
			measured++
			runs = append(runs, workloadFiles{w.Name, ph.Name, files})
			merged, err := Merge(files)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			pr := PhaseResultOf(merged)
			for _, f := range files {
				if v := f.File.Meta.Settings["ybload.version"]; v != "" {
					res.Versions["ybload"] = v
				}
				if v := f.File.Meta.Settings["ysql.driver"]; v != "" {
					res.Versions["driver"] = v
				}
			}
			wr.Phases = append(wr.Phases, pr)
			if ph.Name == "run" {
				wr.Throughput, wr.ThroughputBasis = fig.throughput(&pr), fig.basis
				wr.Comparisons = Compare(wr.Published, &pr, wr.Throughput, wr.CPU)
				wr.Sanity, wr.SanityText = fig.sanity(&pr)
				if wr.Sanity > 0 {
					in := within(wr.Sanity, LittlesLawTolerance)
					wr.SanityTolerance, wr.SanityWithin = LittlesLawTolerance, &in
				}
			}
		}
		res.Workloads = append(res.Workloads, wr)
	}
	if n := spreadNote(setup.Family, setup.ClientHosts, runs); n != "" {
		res.Notes = append([]string{n}, res.Notes...)
	}
	if measured == 0 && len(errs) == 0 {
		errs = append(errs, fmt.Errorf("no agent records in %s: nothing was measured", filepath.Join(runDir, agentsDir)))
	}
	return res, errors.Join(errs...)
}

// notesOf are the result's notes: what departs from the seeds' method or
// from a closed setup, then the profile's own.
func notesOf(s *Setup, res *Result) []string {
	var notes []string
	var accepted []string
	for _, h := range res.Hosts {
		if h.HostKeySource == AcceptedOnFirstUse {
			accepted = append(accepted, h.Name)
		}
	}
	if len(accepted) > 0 {
		notes = append(notes, fmt.Sprintf("The SSH host keys of %s were not known beforehand: accepted on first use (accept_new_host_keys) and pinned for the rest of the run in the run's ssh/known_hosts.",
			strings.Join(accepted, ", ")))
	}
	if res.Environment.DBAuth == "off" {
		notes = append(notes, "The database ran without authentication (db_auth=off), as in the seeds' setup: anyone who could reach its ports could read and change it.")
	}
	return append(notes, s.Notes...)
}

// AcceptedOnFirstUse is the host_key_source of a host whose SSH key was
// trusted on first contact (the inventory's own name for it).
const AcceptedOnFirstUse = "accepted-on-first-use"

// withoutSecretPaths drops settings that name a file of the run's secrets
// directory: result.json says how the database was set up, not where its
// credentials are.
func withoutSecretPaths(m map[string]string, runDir string) map[string]string {
	secrets := filepath.Join(runDir, "secrets")
	out := map[string]string{}
	for k, v := range m {
		if strings.Contains(v, secrets) || strings.Contains(v, "/secrets/") {
			continue
		}
		out[k] = v
	}
	if len(out) == 0 {
		return nil
	}
	return out
}
