package collect

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"github.com/ybbench/ybbench/record/hostcpu"

	"github.com/ybbench/ybbench/record"
)

// Files of a run directory that Aggregate reads besides setup.json.
const (
	clusterFile    = "cluster.json"
	deploymentFile = "deployment.json"
	factsFile      = "hosts.json"
	agentsDir      = "agents"
)

// clusterDoc is the part of cluster.json a result describes. The SSH
// fields other than where the host key's pin came from (user, key file,
// the key itself) are deliberately not read.
type clusterDoc struct {
	Provider string `json:"provider"`
	// Meta holds what the provider recorded of itself: the Terraform
	// release that made the hosts ("terraform_version").
	Meta  map[string]string `json:"meta"`
	Hosts []struct {
		Name         string   `json:"name"`
		Roles        []string `json:"roles"`
		InstanceType string   `json:"instance_type"`
		Cloud        string   `json:"cloud"`
		Region       string   `json:"region"`
		Zone         string   `json:"zone"`
		Shared       bool     `json:"shared"`
		SSH          struct {
			HostKeySource string `json:"host_key_source"`
		} `json:"ssh"`
	} `json:"hosts"`
}

// deploymentDoc is the part of deployment.json a result describes: not
// the password file, the pid files or what the install changed on hosts.
type deploymentDoc struct {
	Flavor   string            `json:"flavor"`
	Version  string            `json:"version"`
	User     string            `json:"user"`
	Database string            `json:"database"`
	Settings map[string]string `json:"settings"`
	YSQL     []endpointDoc     `json:"ysql"`
	YCQL     []endpointDoc     `json:"ycql"`
}

type endpointDoc struct {
	Addr string `json:"addr"`
	Port int    `json:"port"`
}

func (d *deploymentDoc) database() *Database {
	db := &Database{Flavor: d.Flavor, Version: d.Version, User: d.User, Name: d.Database, Settings: d.Settings}
	for _, e := range d.YSQL {
		db.YSQL = append(db.YSQL, e.Addr+":"+strconv.Itoa(e.Port))
	}
	for _, e := range d.YCQL {
		db.YCQL = append(db.YCQL, e.Addr+":"+strconv.Itoa(e.Port))
	}
	return db
}

// readOptional reads a JSON file of the run directory into v; a file that
// is not there is (false, nil): a run stopped early lacks some.
func readOptional(path string, v any) (bool, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return false, fmt.Errorf("%s: %w", path, err)
	}
	return true, nil
}

// agentFiles reads the record files of a phase from every client's copy
// under agents/<host>/, every tick of each in memory: for the short
// phases (a sweep's steps) and the readers that want them whole. Aggregate
// and WriteHDRLogs read a tick at a time.
func agentFiles(runDir, workload, phase string) ([]AgentFile, error) {
	streams, err := OpenRecordStreams(runDir, workload, phase)
	if err != nil {
		return nil, err
	}
	defer CloseRecordStreams(streams)
	var out []AgentFile
	var errs []error
	for _, s := range streams {
		f, err := s.readAll()
		if err != nil {
			errs = append(errs, err)
			continue
		}
		out = append(out, AgentFile{Host: s.Host, Path: s.Path, File: f})
	}
	return out, errors.Join(errs...)
}

// ddlOf returns the DDL the agents of a phase ran, from their summaries
// (one agent creates the table); a problem when agents disagree.
func ddlOf(runDir, workload, phase string) (string, error) {
	dirs, err := os.ReadDir(filepath.Join(runDir, agentsDir))
	if err != nil {
		return "", nil
	}
	ddl := ""
	for _, d := range dirs {
		var s record.PhaseSummary
		path := filepath.Join(runDir, agentsDir, d.Name(), workload+"-"+phase+".json")
		if _, err := readOptional(path, &s); err != nil {
			return ddl, err
		}
		if s.DDL == "" {
			continue
		}
		if ddl != "" && ddl != s.DDL {
			return ddl, fmt.Errorf("%s: the agents ran different DDL (%s ran %q)", workload, d.Name(), s.DDL)
		}
		ddl = s.DDL
	}
	return ddl, nil
}

// ledgerDoc is the part of run.json the CPU figures are read from: the
// measured phase's step details (<host>.cpu_percent, …).
type ledgerDoc struct {
	Steps []struct {
		Name    string            `json:"name"`
		Details map[string]string `json:"details"`
	} `json:"steps"`
}

// cpuFrom reads the db hosts' CPU over a workload's run phase from the
// phase's typed CPU file (runs/<id>/cpu/<workload>-run.json); nil when the
// run has none (the sampler could not read the hosts).
func cpuFrom(f *hostcpu.File) map[string]HostCPU {
	if f == nil {
		return nil
	}
	out := map[string]HostCPU{}
	for host, span := range f.Hosts {
		if u, ok := span.Use(); ok {
			out[host] = HostCPU{Percent: u.Percent, Source: u.Source, Seconds: u.Seconds, SecondsAtEnd: u.SecondsAtEnd}
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}
