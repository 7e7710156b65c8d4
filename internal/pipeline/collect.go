package pipeline

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/ybbench/ybbench/bench/record"
	"github.com/ybbench/ybbench/bench/ysql"
	"github.com/ybbench/ybbench/collect"
	"github.com/ybbench/ybbench/infra"
	"github.com/ybbench/ybbench/infra/inventory"
	"github.com/ybbench/ybbench/internal/exitcode"
	"github.com/ybbench/ybbench/internal/profiles"
	"github.com/ybbench/ybbench/provision"
)

// Version is ybbench's version, set by cmd/ybbench.
var Version = "dev"

// Collect merges every agent's records per workload and phase (adding
// histograms, never averaging percentiles) into result.json.
func (r *Run) Collect(ctx context.Context) error {
	return r.step("collect", "merge the agents' records into result.json", nil, func() (map[string]string, error) {
		res, err := r.collect()
		if res != nil {
			if werr := collect.WriteJSON(filepath.Join(r.dir, ResultFile), res); werr != nil {
				return nil, exitcode.Wrap(exitcode.Tool, werr)
			}
		}
		return nil, err
	})
}

func (r *Run) collect() (*collect.Result, error) {
	p := r.profile()
	params := r.spec.Params
	res := &collect.Result{
		Schema: collect.ResultSchema, RunID: r.ID(), Profile: p.Name, Created: time.Now().UTC(),
		Versions: map[string]string{"ybbench": Version, "go": runtime.Version()},
		Cluster:  r.cluster, Hosts: r.facts, Deployment: r.dep, Overridden: r.spec.Overridden,
		Parameters: parametersOf(p.Family, params, r.spec),
	}
	if r.dep != nil {
		res.Versions["database"] = r.dep.Flavor + " " + r.dep.Version
	}
	if r.cluster != nil && r.cluster.Meta[infra.MetaTerraformVersion] != "" {
		res.Versions["terraform"] = r.cluster.Meta[infra.MetaTerraformVersion]
	}
	if r.spec.ClientHosts > 1 {
		res.Notes = append(res.Notes, fmt.Sprintf("%d client hosts share the key space and the threads: this is not the seeds' method, which used one client.", r.spec.ClientHosts))
	}
	if n := acceptedHostKeys(r); n != "" {
		res.Notes = append(res.Notes, n)
	}
	if n := authOff(r.dep); n != "" {
		res.Notes = append(res.Notes, n)
	}
	res.Notes = append(res.Notes, p.Notes...)
	fam, err := familyOf(p.Family)
	if err != nil {
		return res, exitcode.Wrap(exitcode.Config, err)
	}
	var errs []error
	measured := 0
	for _, w := range r.spec.Workloads {
		wr := collect.WorkloadResult{Name: w, Published: p.Baseline.Row(w), CPU: r.cpuOf(Phase{Workload: w, Phase: "run"})}
		if p.Binding == "ysql" && p.Family == "ycsb" {
			var fields []string
			for i := 0; i < 10; i++ {
				fields = append(fields, "field"+strconv.Itoa(i))
			}
			wr.DDL = ysql.CreateTableDDL("usertable", fields, params.DDL, r.dep != nil && r.dep.Flavor == "yugabyte", true)
		}
		for _, phase := range fam.phases(w) {
			if !recordsOf(Phase{Workload: w, Phase: phase}) {
				continue
			}
			files, err := r.agentFiles(Phase{Workload: w, Phase: phase})
			if err != nil {
				errs = append(errs, err)
				wr.Problems = append(wr.Problems, err.Error())
				continue
			}
			if len(files) == 0 {
				wr.Problems = append(wr.Problems, fmt.Sprintf("no agent records for %s %s: not run, or nothing measured", w, phase))
				continue
			}
			measured++
			merged, err := collect.Merge(files)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			pr := collect.PhaseResultOf(merged)
			for _, f := range files {
				if v := f.File.Meta.Settings["ybload.version"]; v != "" {
					res.Versions["ybload"] = v
				}
				if v := f.File.Meta.Settings["ysql.driver"]; v != "" {
					res.Versions["driver"] = v
				}
			}
			wr.Phases = append(wr.Phases, pr)
			if phase == "run" {
				wr.Comparisons = collect.Compare(wr.Published, &pr, fam.throughput(&pr), wr.CPU)
				wr.Sanity, wr.SanityText = fam.sanity(&pr)
			}
		}
		res.Workloads = append(res.Workloads, wr)
	}
	if measured == 0 && len(errs) == 0 {
		errs = append(errs, fmt.Errorf("no agent records in %s: nothing was measured", filepath.Join(r.dir, "agents")))
	}
	return res, exitcode.Wrap(exitcode.Workload, errors.Join(errs...))
}

// acceptedHostKeys says which hosts' SSH keys were trusted on first use
// (accept_new_host_keys), or "" when every key was known beforehand.
func acceptedHostKeys(r *Run) string {
	if r.cluster == nil {
		return ""
	}
	var names []string
	for _, h := range r.cluster.Hosts {
		if h.SSH.HostKeySource == inventory.AcceptedOnFirstUse {
			names = append(names, h.Name)
		}
	}
	if len(names) == 0 {
		return ""
	}
	return fmt.Sprintf("The SSH host keys of %s were not known beforehand: accepted on first use (accept_new_host_keys) and pinned for the rest of the run in %s.",
		strings.Join(names, ", "), filepath.Join(r.dir, "ssh", "known_hosts"))
}

// parametersOf lists the parameters that shape a family's numbers.
func parametersOf(family string, p profiles.Parameters, s *Resolved) map[string]string {
	m := map[string]string{"threads": strconv.Itoa(p.Threads), "duration": p.Duration.String(),
		"workloads": strings.Join(s.Workloads, ","), "flavor": s.Flavor, "client_hosts": strconv.Itoa(s.ClientHosts)}
	switch family {
	case "ycsb":
		m["records"] = strconv.FormatInt(p.Records, 10)
		m["operations"] = strconv.FormatInt(p.Operations, 10)
		m["load_threads"] = strconv.Itoa(p.LoadThreads)
		m["ddl"] = p.DDL
	case "sysbench":
		m["records"] = strconv.FormatInt(p.Records, 10) + " per table"
		m["tables"] = strconv.Itoa(p.Tables)
		m["warmup"] = p.Warmup.String()
	}
	return m
}

// cpuOf reads the db hosts' CPU over a phase from its ledger details.
func (r *Run) cpuOf(ph Phase) map[string]collect.HostCPU {
	for _, st := range r.ledger.Record().Steps {
		if st.Name != ph.stepName() {
			continue
		}
		out := map[string]collect.HostCPU{}
		for k, v := range st.Details {
			host, key, ok := strings.Cut(k, ".cpu_")
			if !ok {
				continue
			}
			c := out[host]
			f, _ := strconv.ParseFloat(v, 64)
			switch key {
			case "percent":
				c.Percent = f
			case "source":
				c.Source = v
			case "seconds":
				c.Seconds = f
			case "seconds_end":
				c.SecondsAtEnd = f
			}
			out[host] = c
		}
		if len(out) > 0 {
			return out
		}
	}
	return nil
}

// agentFiles reads the record files of a phase from every client's copy.
func (r *Run) agentFiles(ph Phase) ([]collect.AgentFile, error) {
	dirs, err := os.ReadDir(filepath.Join(r.dir, "agents"))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []collect.AgentFile
	var errs []error
	for _, d := range dirs {
		path := filepath.Join(r.dir, "agents", d.Name(), ph.fileBase()+".jsonl")
		b, err := os.ReadFile(path)
		if err != nil || len(b) == 0 {
			continue
		}
		f, err := record.Read(path, bytes.NewReader(b))
		if err != nil {
			errs = append(errs, err)
			continue
		}
		out = append(out, collect.AgentFile{Host: d.Name(), Path: path, File: f})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Host < out[j].Host })
	return out, errors.Join(errs...)
}

// Report renders report.md from result.json.
func (r *Run) Report(ctx context.Context) error {
	return r.step("report", "render report.md beside the published figures", nil, func() (map[string]string, error) {
		var res collect.Result
		if err := readJSON(filepath.Join(r.dir, ResultFile), &res); err != nil {
			return nil, exitcode.Wrap(exitcode.Tool, err)
		}
		var b bytes.Buffer
		if err := collect.WriteMarkdown(&b, &res, &r.profile().Baseline); err != nil {
			return nil, exitcode.Wrap(exitcode.Tool, err)
		}
		path := filepath.Join(r.dir, ReportFile)
		if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
			return nil, exitcode.Wrap(exitcode.Tool, err)
		}
		return map[string]string{"report": path}, nil
	})
}

// authOff is the report's note for a database run without authentication
// (--db-auth=off, the seeds' setup), "" when the database was closed.
func authOff(dep *provision.Deployment) string {
	if dep == nil || dep.Settings["auth"] != "off" {
		return ""
	}
	return "The database ran without authentication (db_auth=off), as in the seeds' setup: anyone who could reach its ports could read and change it."
}
