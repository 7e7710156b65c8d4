package collect

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

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
func Aggregate(runDir string) (*Result, error) { return AggregateSeries(runDir, nil) }

// AggregateSeries is Aggregate that also writes, to series (nil: none),
// the series the report draws of every phase whose records could be
// read, made in the same reading of the records as the result: each
// tick's histogram is decoded once for both. The caller commits series
// once the result is written.
func AggregateSeries(runDir string, series *SeriesWriter) (*Result, error) {
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
	docs, err := readRunDocs(runDir)
	if err != nil {
		return nil, err
	}
	res := describeRun(runDir, &setup, docs)

	rr := &runRead{dir: runDir, fig: fig, versions: res.Versions, lc: limitContextOf(&setup, res), series: series}
	var errs []error
	measured := 0
	var runs []workloadFiles // the measured phases' files, for how the load was spread
	for _, w := range setup.Workloads {
		m := rr.measureWorkload(w, setup.Repetitions, res.Baseline)
		res.Workloads = append(res.Workloads, m.result)
		measured += m.measured
		runs = append(runs, m.files...)
		errs = append(errs, m.errs...)
	}
	if n := spreadNote(setup.Family, setup.ClientHosts, runs); n != "" {
		res.Notes = append([]string{n}, res.Notes...)
	}
	if measured == 0 && len(errs) == 0 {
		errs = append(errs, fmt.Errorf("no agent records in %s: nothing was measured", filepath.Join(runDir, agentsDir)))
	}
	res.Reproduction = reproductionOf(res, setup.PublishedHardware)
	res.Build = setup.Build
	res.Caveats = caveatsOf(res)
	return res, errors.Join(errs...)
}

// runDocs are the run directory's files, besides setup.json, that say on
// what the run measured; each may be missing, as in a run stopped early.
type runDocs struct {
	cluster    clusterDoc
	hasCluster bool
	facts      map[string]map[string]string
	dep        deploymentDoc
	hasDep     bool
}

// readRunDocs reads cluster.json, hosts.json and deployment.json, and
// run.json, which only has to parse: the result takes nothing from it.
func readRunDocs(runDir string) (*runDocs, error) {
	var d runDocs
	var err error
	if d.hasCluster, err = readOptional(filepath.Join(runDir, clusterFile), &d.cluster); err != nil {
		return nil, err
	}
	if _, err := readOptional(filepath.Join(runDir, factsFile), &d.facts); err != nil {
		return nil, err
	}
	if d.hasDep, err = readOptional(filepath.Join(runDir, deploymentFile), &d.dep); err != nil {
		return nil, err
	}
	var ledger ledgerDoc
	if _, err := readOptional(filepath.Join(runDir, "run.json"), &ledger); err != nil {
		return nil, err
	}
	return &d, nil
}

// describeRun is the result without its workloads: what the run was asked
// to measure, on which hosts and database, against which published table,
// and the notes on how its method departs from the seeds'.
func describeRun(runDir string, setup *Setup, docs *runDocs) *Result {
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
	if docs.hasCluster {
		res.describeCluster(&docs.cluster, docs.facts, setup.CPUs)
	}
	res.PreflightWarnings = preflightWarningsOf(docs.facts, res.Hosts)
	if docs.hasDep {
		res.describeDeployment(&docs.dep, setup.DatabaseProduct, runDir)
	}
	if setup.Baseline != nil && (setup.Baseline.Source != "" || len(setup.Baseline.Rows) > 0) {
		ok, bad := setup.Baseline.Consistent(profiles.LittlesLawTolerance)
		res.Baseline = &BaselineResult{Baseline: *setup.Baseline, Consistent: ok, Inconsistencies: bad}
	}
	res.Notes = notesOf(setup, res)
	return res
}

// describeCluster takes the hosts from cluster.json, each with what the
// preflight found on it (facts), over what setup.json said: the cluster
// is what the run actually had.
func (res *Result) describeCluster(cluster *clusterDoc, facts map[string]map[string]string, orchestratorCPUs int) {
	res.Environment.Provider = cluster.Provider
	if v := cluster.Meta["terraform_version"]; v != "" {
		res.Versions["terraform"] = v
	}
	for _, h := range cluster.Hosts {
		res.Hosts = append(res.Hosts, Host{Name: h.Name, Roles: h.Roles, InstanceType: h.InstanceType, Cloud: h.Cloud,
			Region: h.Region, Zone: h.Zone, Shared: h.Shared, HostKeySource: h.SSH.HostKeySource, Facts: facts[h.Name]})
	}
	res.Environment.SharedMachine = sharedMachineOf(res.Hosts, orchestratorCPUs)
}

// describeDeployment takes the database from deployment.json, without the
// settings that name the run's secrets; a database installed without
// authentication says so even when setup.json did not.
func (res *Result) describeDeployment(dep *deploymentDoc, product, runDir string) {
	res.Database = dep.database()
	res.Database.Product = product
	res.Database.Settings = withoutSecretPaths(res.Database.Settings, runDir)
	res.Versions["database"] = dep.Flavor + " " + dep.Version
	if dep.Settings["auth"] == "off" {
		res.Environment.DBAuth = "off"
	}
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
