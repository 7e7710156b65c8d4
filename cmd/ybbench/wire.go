package main

import (
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/ybbench/ybbench/infra"
	"github.com/ybbench/ybbench/pipeline"
	"github.com/ybbench/ybbench/pipeline/parts"
	"github.com/ybbench/ybbench/provision"
	"github.com/ybbench/ybbench/provision/ssh"
)

// deps wires the parts of reg (the one place that knows them by name:
// the built-in registry but in tests) and the SSH runner.
func deps(stderr io.Writer, verbose bool, reg *parts.Registry) pipeline.Deps {
	log := logger(stderr, verbose)
	provider := func(s *pipeline.Spec) (infra.Provider, error) {
		return reg.NewProvider(s.Provider, parts.ProviderOptions{Inventory: s.Inventory, Log: log})
	}
	return pipeline.Deps{
		Registry: reg,
		Provider: func(s *pipeline.Spec, runDir string) (infra.Provider, error) { return provider(s) },
		Runner: func(s *pipeline.Spec, runDir string, log *slog.Logger) (provision.Runner, error) {
			opts := []ssh.Option{ssh.WithKnownHosts(filepath.Join(runDir, "ssh", "known_hosts")),
				ssh.WithLogDir(filepath.Join(runDir, "logs")), ssh.WithLogger(log)}
			if p, ok := reg.Provider(s.Provider); ok && p.Traits.Running {
				// These machines are up already: a refused connection is an
				// answer, not a machine still booting (cloud VMs get the
				// runner's long default).
				opts = append(opts, ssh.WithRetryWindow(20*time.Second))
			}
			return ssh.New(opts...)
		},
		Flavor:    func(name string) (provision.Flavor, error) { return reg.NewFlavor(name, log) },
		NewKey:    ssh.GenerateKey,
		Preflight: preflight,
		Progress:  progressFor(stderr),
		Log:       log,
		// The command as typed, for the report (redacted there).
		Args:    os.Args,
		Environ: os.Environ(),
		Tool:    "ybbench " + versionText(),
	}
}

// preflight runs provision.Preflight, whose one script also reads what
// result.json records about each host (kernel, architecture, CPUs, memory,
// OS), and keeps its typed checks as hosts.json's facts per host.
func preflight(ctx context.Context, r provision.Runner, hosts []infra.Host, maxSkew time.Duration) (map[string]map[string]string, error) {
	checks, err := provision.Preflight(ctx, r, hosts, provision.PreflightOptions{MaxClockSkew: maxSkew})
	return provision.PreflightFacts(checks), err
}
