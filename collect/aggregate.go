package collect

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/ybbench/ybbench/record/repetition"

	"github.com/ybbench/ybbench/profiles"
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
		ok, bad := setup.Baseline.Consistent(profiles.LittlesLawTolerance)
		res.Baseline = &BaselineResult{Baseline: *setup.Baseline, Consistent: ok, Inconsistencies: bad}
	}
	res.Notes = notesOf(&setup, res)

	var errs []error
	measured := 0
	var runs []workloadFiles // the measured phases' files, for how the load was spread
	for _, w := range setup.Workloads {
		wr := WorkloadResult{Name: w.Name, Phases: []PhaseResult{}}
		if res.Baseline != nil {
			wr.Published = res.Baseline.Row(w.Name)
		}
		if wr.Published != nil {
			if v, err := wr.Published.LittlesLaw(res.Baseline.Threads); err == nil {
				wr.PublishedLittlesLaw = &LittlesLaw{Threads: wr.Published.ThreadsOf(res.Baseline.Threads), Value: v,
					Tolerance: profiles.LittlesLawTolerance, Within: within(v, profiles.LittlesLawTolerance)}
			}
		}
		if setup.Repetitions <= 1 {
			m := measureRepetition(runDir, w, 0, wr.Published, fig, res.Versions)
			wr.DDL, wr.Phases, wr.Throughput, wr.Comparisons, wr.Sanity, wr.CPU, wr.Problems =
				m.ddl, m.rep.Phases, m.rep.Throughput, m.rep.Comparisons, m.rep.Sanity, m.rep.CPU, m.rep.Problems
			measured += m.measured
			runs = append(runs, m.files...)
			errs = append(errs, m.errs...)
		} else {
			for k := 1; k <= setup.Repetitions; k++ {
				m := measureRepetition(runDir, w, k, wr.Published, fig, res.Versions)
				if m.ddl != "" && wr.DDL == "" {
					wr.DDL = m.ddl
				}
				if k == 1 {
					// Every repetition spreads the load alike: the note
					// names the first's agents.
					runs = append(runs, m.files...)
				}
				wr.Repetitions = append(wr.Repetitions, m.rep)
				measured += m.measured
				errs = append(errs, m.errs...)
			}
			med := wr.Repetitions[medianRepetition(wr.Repetitions)]
			wr.MedianRepetition = med.Index
			wr.Phases, wr.Throughput, wr.Comparisons, wr.Sanity, wr.CPU, wr.Problems =
				med.Phases, med.Throughput, med.Comparisons, med.Sanity, med.CPU, med.Problems
			wr.Spread = spreadsOf(wr.Repetitions)
		}
		if p := MeasuredPhaseOf(wr.Phases); p != nil {
			wr.ThroughputBasis = fig.basis
			_, wr.SanityText = fig.sanity(p)
			if wr.Sanity > 0 {
				in := within(wr.Sanity, profiles.LittlesLawTolerance)
				wr.SanityTolerance, wr.SanityWithin = profiles.LittlesLawTolerance, &in
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

// repetitionRead is one repetition of a workload as its files say it: its
// figures, the DDL its agents ran, how many of its phases have records,
// and what could not be read.
type repetitionRead struct {
	rep      Repetition
	ddl      string
	measured int
	errs     []error
	// files are the record files of each phase that has them, for the
	// note on how the load was spread.
	files []workloadFiles
}

// measureRepetition reads repetition k of a workload (k = 0: the run has
// no repetitions, and its files carry no repetition in their names): each
// phase's agents' records merged, and the measured phase's figures.
func measureRepetition(runDir string, w SetupWorkload, k int, published *profiles.BaselineRow, fig figures, versions map[string]string) repetitionRead {
	stem := repetition.Stem(w.Name, k)
	name := w.Name
	if k > 0 {
		name = w.Name + " " + repetition.Tag(k)
	}
	var out repetitionRead
	rep := &out.rep
	rep.Index, rep.Phases = k, []PhaseResult{}
	cpu, err := cpuOf(runDir, stem)
	if err != nil {
		out.errs = append(out.errs, fmt.Errorf("%s: the db hosts' CPU: %w", name, err))
	}
	rep.CPU = cpu
	for _, ph := range w.Phases {
		ddl, err := ddlOf(runDir, stem, ph.Name)
		if err != nil {
			rep.Problems = append(rep.Problems, err.Error())
		}
		if ddl != "" && out.ddl == "" {
			out.ddl = ddl
		}
		if !ph.Records {
			continue
		}
		files, err := agentFiles(runDir, stem, ph.Name)
		if err != nil {
			out.errs = append(out.errs, err)
			rep.Problems = append(rep.Problems, err.Error())
			continue
		}
		if len(files) == 0 {
			rep.Problems = append(rep.Problems, fmt.Sprintf("no agent records for %s %s: not run, or nothing measured", name, ph.Name))
			continue
		}
		out.measured++
		out.files = append(out.files, workloadFiles{w.Name, ph.Name, files})
		merged, err := Merge(files)
		if err != nil {
			out.errs = append(out.errs, err)
			continue
		}
		pr := PhaseResultOf(merged)
		for _, f := range files {
			if v := f.File.Meta.Settings["ybload.version"]; v != "" {
				versions["ybload"] = v
			}
			if v := f.File.Meta.Settings["ysql.driver"]; v != "" {
				versions["driver"] = v
			}
		}
		rep.Phases = append(rep.Phases, pr)
		if ph.Name == MeasuredPhase {
			rep.Throughput = fig.throughput(&pr)
			rep.Comparisons = Compare(published, &pr, rep.Throughput, rep.CPU)
			rep.Sanity, _ = fig.sanity(&pr)
		}
	}
	return out
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
	if s.Repetitions > 1 {
		notes = append(notes, fmt.Sprintf("Each workload ran %d times, one repetition after the other on the same cluster; a workload's figures are those of its median repetition (by the measured phase's throughput), and its spread gives every figure's median, range and coefficient of variation over all of them. Gates use the medians.", s.Repetitions))
		if s.Family == "kv" {
			notes = append(notes, "The KV tool's repetitions continue on the keys the earlier ones wrote: the table is not made afresh between them, so a later repetition reads and overwrites a key space the earlier ones filled.")
		} else {
			notes = append(notes, "Each repetition made its table afresh and loaded it again (prepare and load) before its measured phase.")
		}
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
