// Command fanout times the orchestrator's own stages on one local cluster:
// it wires the pipeline as ybbench does (the built-in parts, the SSH
// runner), plus a flavor that installs nothing (noinstall.go) in a registry
// of its own, and runs up, preflight, install and down, always down. It
// prints each stage's wall time, from the run's ledger, as one JSON object
// on stdout; progress goes to stderr.
//
// The sidebyside benchmark's fanout section builds and runs it over
// several host counts (docs/benchmarks.md). It needs root and a Terraform
// (YBBENCH_TERRAFORM), as a local cluster does.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/ybbench/ybbench/infra"
	"github.com/ybbench/ybbench/pipeline"
	"github.com/ybbench/ybbench/pipeline/parts"
	"github.com/ybbench/ybbench/provision"
	"github.com/ybbench/ybbench/provision/ssh"
)

// Result is what the program prints: the run, and each stage's wall time
// in seconds (the ledger's step named so).
type Result struct {
	Run      string             `json:"run"`
	DBHosts  int                `json:"db_hosts"`
	Clients  int                `json:"client_hosts"`
	Flavor   string             `json:"flavor"`
	Seconds  map[string]float64 `json:"seconds"`
	Error    string             `json:"error,omitempty"`
	Teardown string             `json:"teardown_error,omitempty"`
}

func main() {
	runs := flag.String("runs-dir", "", "directory of the run (required)")
	db := flag.Int("db-hosts", 2, "db hosts")
	clients := flag.Int("client-hosts", 1, "client hosts")
	subnet := flag.String("subnet", "10.213.160.0/24", "the local cluster's subnet")
	flavor := flag.String("flavor", noInstallName, "flavor: "+noInstallName+" (installs nothing) or one of ybbench's")
	parallel := flag.Int("parallel", 0, "the parallel setting (0: all hosts at once)")
	flag.Parse()
	if *runs == "" {
		fmt.Fprintln(os.Stderr, "fanout: -runs-dir is required")
		os.Exit(2)
	}
	res := Result{DBHosts: *db, Clients: *clients, Flavor: *flavor}
	err := run(&res, map[string]string{"provider": "local", "runs_dir": *runs, "db_hosts": strconv.Itoa(*db),
		"client_hosts": strconv.Itoa(*clients), "subnet": *subnet, "flavor": *flavor, "parallel": strconv.Itoa(*parallel)})
	json.NewEncoder(os.Stdout).Encode(res)
	if err != nil {
		fmt.Fprintln(os.Stderr, "fanout:", err)
		os.Exit(1)
	}
}

// run makes the run, times its stages into res, and always tears it down.
func run(res *Result, flags map[string]string) error {
	ctx := context.Background()
	reg := registry()
	d := deps(reg)
	s, lerr := pipeline.Load(pipeline.CommandLine{Flags: flags})
	if lerr != nil {
		return lerr
	}
	rs, err := s.ResolveWith(reg)
	if err != nil {
		return err
	}
	if err := rs.Spec.Check(ctx, d, pipeline.CheckOptions{MakesHosts: true}); err != nil {
		return err
	}
	r, err := pipeline.New(rs, d)
	if err != nil {
		return err
	}
	defer r.Close()
	res.Run = r.Dir()
	err = r.Up(ctx)
	if err == nil {
		err = r.Preflight(ctx)
	}
	if err == nil {
		err = r.Install(ctx)
	}
	if err != nil {
		res.Error = err.Error()
	}
	derr := r.TearDown()
	if derr != nil {
		res.Teardown = derr.Error()
	}
	res.Seconds = map[string]float64{}
	for _, st := range r.Ledger().Record().Steps {
		res.Seconds[st.Name] += st.Ended.Sub(st.Started).Seconds()
	}
	if derr != nil {
		return errors.Join(err, fmt.Errorf("the run is kept in %s: finish with ybbench down --run %s: %w", r.Dir(), r.Dir(), derr))
	}
	return err
}

// deps wires reg's parts and the SSH runner as cmd/ybbench does.
func deps(reg *parts.Registry) pipeline.Deps {
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	return pipeline.Deps{
		Registry: reg,
		Provider: func(s *pipeline.Spec, _ string) (infra.Provider, error) {
			return reg.NewProvider(s.Provider, parts.ProviderOptions{Inventory: s.Inventory, Log: log})
		},
		Runner: func(_ *pipeline.Spec, runDir string, log *slog.Logger) (provision.Runner, error) {
			return ssh.New(ssh.WithKnownHosts(filepath.Join(runDir, "ssh", "known_hosts")),
				ssh.WithLogDir(filepath.Join(runDir, "logs")), ssh.WithLogger(log), ssh.WithRetryWindow(20*time.Second))
		},
		Flavor: func(name string) (provision.Flavor, error) { return reg.NewFlavor(name, log) },
		NewKey: ssh.GenerateKey,
		Preflight: func(ctx context.Context, r provision.Runner, hosts []infra.Host, maxSkew time.Duration) (map[string]map[string]string, error) {
			checks, err := provision.Preflight(ctx, r, hosts, provision.PreflightOptions{MaxClockSkew: maxSkew})
			return provision.PreflightFacts(checks), err
		},
		Progress: pipeline.NewLines(os.Stderr),
		Log:      log,
		Tool:     "ybbench fanout benchmark",
	}
}
