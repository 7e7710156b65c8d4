package main

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/ybbench/ybbench/infra"
	"github.com/ybbench/ybbench/pipeline/parts"
	"github.com/ybbench/ybbench/provision"
)

// noInstallName is the flavor that installs nothing, in this program's
// registry only.
const noInstallName = "none"

// noInstall installs no database: on every db host, through the bounded,
// ordered fan-out every flavor uses (provision.Parallel, the run's
// parallel setting), it claims the run's own directory, as every flavor
// does before writing there, and Wipe releases it. What an install of it
// costs is then the orchestrator's own work: one SSH command per host and
// the fan-out around it, no database's.
type noInstall struct{}

func (noInstall) Name() string { return noInstallName }

func (noInstall) Describe(provision.FlavorSpec) string { return "(nothing: no server is installed)" }

func (noInstall) Install(ctx context.Context, r provision.Runner, c *infra.Cluster, s provision.FlavorSpec) (*provision.Deployment, error) {
	dep := &provision.Deployment{Flavor: noInstallName, Version: "0", Database: "none", User: "none",
		Settings: map[string]string{"server": "none (the fan-out benchmark)"}}
	dbs := c.ByRole(infra.RoleDB)
	mark := provision.Mark{RunID: s.RunID, Version: s.ToolVersion}
	_, err := provision.Parallel(ctx, dbs, provision.ParallelOptions{Limit: s.Parallel, FailFast: true},
		func(ctx context.Context, h infra.Host) (struct{}, error) {
			return struct{}{}, provision.Claim(ctx, r, h, mark, []string{h.Base}, "")
		})
	for _, h := range dbs {
		// Port 1: nothing answers there; no agent is run on this flavor.
		dep.YSQL = append(dep.YSQL, provision.Endpoint{Host: h.Name, Addr: h.PrivateIP, Port: 1})
	}
	if err != nil {
		return dep, err
	}
	dep.PasswordFile = filepath.Join(s.SecretsDir, "none-password")
	return dep, os.WriteFile(dep.PasswordFile, []byte("not-a-password\n"), 0o600)
}

func (noInstall) Stop(context.Context, provision.Runner, *infra.Cluster) error { return nil }

// Wipe releases the run's own directory on every db host, all of them
// even when one fails (a teardown does every host).
func (noInstall) Wipe(ctx context.Context, r provision.Runner, c *infra.Cluster) error {
	_, err := provision.Parallel(ctx, c.ByRole(infra.RoleDB), provision.ParallelOptions{},
		func(ctx context.Context, h infra.Host) (struct{}, error) {
			return struct{}{}, provision.Release(ctx, r, h, c.Name, []string{h.Base})
		})
	return err
}

// registry is the built-in parts and the no-install flavor, last, so that
// no run picks it by default.
func registry() *parts.Registry {
	reg := parts.Builtin()
	reg.Flavors = append(reg.Flavors, parts.Flavor{Name: noInstallName, Product: "nothing",
		Traits: provision.FlavorTraits{APIs: []provision.API{provision.YSQL}},
		New:    func(*slog.Logger) provision.Flavor { return noInstall{} }})
	return reg
}
