// Command fanout times the orchestrator's own stages on one local cluster:
// it wires the pipeline as ybbench does (the built-in parts, the SSH
// runner), plus a flavor that installs nothing (noinstall.go) in a registry
// of its own, and runs up, preflight, install and down, always down (a
// failed preflight is reported, and the install runs still). It
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
	"syscall"
	"time"

	"github.com/ybbench/ybbench/infra"
	"github.com/ybbench/ybbench/pipeline"
	"github.com/ybbench/ybbench/pipeline/parts"
	"github.com/ybbench/ybbench/provision"
	"github.com/ybbench/ybbench/provision/ssh"
)

// Result is what the program prints: the run, each stage's wall time in
// seconds (the ledger's step named so) and its CPU.
type Result struct {
	Run     string             `json:"run"`
	DBHosts int                `json:"db_hosts"`
	Clients int                `json:"client_hosts"`
	Flavor  string             `json:"flavor"`
	Seconds map[string]float64 `json:"seconds"`
	// CPU is each stage's CPU seconds: this process's (ybbench's own
	// code) and its children's (Terraform and hosts.sh); not the hosts'.
	CPU   map[string]StageCPU `json:"cpu"`
	Error string              `json:"error,omitempty"`
	// Preflight is why the preflight failed, when it did (the run went on).
	Preflight string `json:"preflight_error,omitempty"`
	Teardown  string `json:"teardown_error,omitempty"`
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
	res.CPU = map[string]StageCPU{}
	err = res.timed("up", func() error { return r.Up(ctx) })
	if err == nil {
		// The install needs no preflight: one that fails (a clock not read
		// in time on a loaded machine) is said, and the install timed still.
		if perr := res.timed("preflight", func() error { return r.Preflight(ctx) }); perr != nil {
			res.Preflight = perr.Error()
		}
		err = res.timed("install", func() error { return r.Install(ctx) })
	}
	if err != nil {
		res.Error = err.Error()
	}
	derr := res.timed("down", r.TearDown)
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

// StageCPU is a stage's CPU seconds, user and system.
type StageCPU struct {
	Self     float64 `json:"self"`
	Children float64 `json:"children"`
}

// timed runs a stage and records its CPU in res.CPU[name].
func (res *Result) timed(name string, stage func() error) error {
	s0, c0 := cpuSeconds(syscall.RUSAGE_SELF), cpuSeconds(syscall.RUSAGE_CHILDREN)
	err := stage()
	s1, c1 := cpuSeconds(syscall.RUSAGE_SELF), cpuSeconds(syscall.RUSAGE_CHILDREN)
	res.CPU[name] = StageCPU{Self: s1 - s0, Children: c1 - c0}
	return err
}

// cpuSeconds is the user and system time of who (getrusage).
func cpuSeconds(who int) float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(who, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
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
