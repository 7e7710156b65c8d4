package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"time"

	"github.com/ybbench/ybbench/infra"
	"github.com/ybbench/ybbench/infra/inventory"
	"github.com/ybbench/ybbench/infra/local"
	"github.com/ybbench/ybbench/infra/terraform"
	"github.com/ybbench/ybbench/internal/pipeline"
	"github.com/ybbench/ybbench/provision"
	"github.com/ybbench/ybbench/provision/cassandra"
	"github.com/ybbench/ybbench/provision/postgres"
	"github.com/ybbench/ybbench/provision/ssh"
	"github.com/ybbench/ybbench/provision/yugabyte"
)

// deps wires the real parts: providers, the SSH runner, the flavors.
func deps(stderr io.Writer, verbose bool) pipeline.Deps {
	log := logger(stderr, verbose)
	provider := func(s *pipeline.Spec) (infra.Provider, error) {
		switch s.Provider {
		case "local":
			opts := []local.Option{local.Logger(log)}
			// Not found is not an error here: a teardown sweeps what
			// Terraform made without it, and Create reports it (exit 2).
			if tf, err := terraform.FindBinary(""); err == nil {
				opts = append(opts, local.TerraformBinary(tf))
			}
			return local.New(opts...), nil
		case "inventory":
			return inventory.New(s.Inventory), nil
		}
		return nil, fmt.Errorf("provider %q is not available", s.Provider)
	}
	return pipeline.Deps{
		Provider: func(s *pipeline.Spec, runDir string) (infra.Provider, error) { return provider(s) },
		Runner: func(s *pipeline.Spec, runDir string, log *slog.Logger) (provision.Runner, error) {
			opts := []ssh.Option{ssh.WithKnownHosts(filepath.Join(runDir, "ssh", "known_hosts")),
				ssh.WithLogDir(filepath.Join(runDir, "logs")), ssh.WithLogger(log)}
			if p, err := provider(s); err == nil && p.Traits().Running {
				// These machines are up already: a refused connection is an
				// answer, not a machine still booting (cloud VMs get the
				// runner's long default).
				opts = append(opts, ssh.WithRetryWindow(20*time.Second))
			}
			return ssh.New(opts...)
		},
		Flavor: func(name string) (provision.Flavor, error) {
			switch name {
			case "postgres":
				return &postgres.Flavor{}, nil
			case "yugabyte":
				return yugabyte.New(), nil
			case "cassandra":
				return cassandra.New(cassandra.WithLogger(log)), nil
			}
			return nil, fmt.Errorf("unknown flavor %q", name)
		},
		NewKey:    ssh.GenerateKey,
		Preflight: preflight,
		Progress:  progressFor(stderr),
		Log:       log,
	}
}

// preflight runs provision.Preflight, whose one script also reads what
// result.json records about each host (kernel, architecture, CPUs, memory,
// OS), and keeps its typed checks as hosts.json's facts per host.
func preflight(ctx context.Context, r provision.Runner, hosts []infra.Host, maxSkew time.Duration) (map[string]map[string]string, error) {
	checks, err := provision.Preflight(ctx, r, hosts, provision.PreflightOptions{MaxClockSkew: maxSkew})
	return provision.PreflightFacts(checks), err
}
