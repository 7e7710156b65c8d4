package gcp

import (
	"context"
	"fmt"

	"github.com/ybbench/ybbench/infra"
	"github.com/ybbench/ybbench/infra/terraform"
	"github.com/ybbench/ybbench/internal/exitcode"
)

// Destroy removes the run's resources with `terraform destroy`, then asks
// the Compute API whether anything of the run remains: instances labelled
// with its run id (in any zone), its firewalls, subnetwork and network by
// their names and marks. It continues past a failed destroy, and works
// from the cluster's Meta alone (cluster.json): run directory, project and
// region.
//
// What remains is an *infra.LeftoverError naming it and the janitor
// command that removes it, classified exitcode.Teardown; so is a check
// that could not be made.
func (p *Provider) Destroy(ctx context.Context, c *infra.Cluster) error {
	if c == nil || c.Meta[MetaRunDir] == "" || c.Meta[MetaProject] == "" || c.Meta[MetaRegion] == "" {
		return exitcode.Errorf(exitcode.Config, "gcp provider: Destroy: the cluster has no %s, %s and %s in its meta (not made by the gcp provider?)",
			MetaRunDir, MetaProject, MetaRegion)
	}
	runDir, project, region := c.Meta[MetaRunDir], c.Meta[MetaProject], c.Meta[MetaRegion]
	log := p.log.With("run", c.Name)
	dir := tfDir(runDir)
	janitor := fmt.Sprintf("ybbench janitor --provider %s --project %s --run %s --yes", ProviderName, project, c.Name)

	stack, tfErr := terraform.New(ctx, nil, runDir, terraform.WorkDir(dir), terraform.Binary(p.terraformBin), terraform.Logger(log))
	if tfErr == nil {
		tfErr = stack.Destroy(ctx)
	}
	if tfErr != nil {
		log.Warn("terraform destroy failed; checking what remains", "err", tfErr)
	}

	cl, err := p.connect(ctx)
	if err != nil {
		return exitcode.Wrap(exitcode.Teardown, fmt.Errorf("gcp provider: cannot check what of run %s remains: %w (terraform destroy: %v); check and remove with: %s",
			c.Name, err, errText(tfErr), janitor))
	}
	defer cl.Close()
	left, findErr := findRun(ctx, cl, project, region, c.Name)
	if len(left) > 0 {
		if findErr != nil {
			log.Warn("part of the check for remains failed", "err", findErr)
		}
		return exitcode.Wrap(exitcode.Teardown, &infra.LeftoverError{Provider: ProviderName, RunID: c.Name,
			Scope: "--project " + project, Resources: left})
	}
	if findErr != nil {
		return exitcode.Wrap(exitcode.Teardown, fmt.Errorf("gcp provider: cannot check what of run %s remains: %w (terraform destroy: %v); check and remove with: %s",
			c.Name, findErr, errText(tfErr), janitor))
	}
	if tfErr != nil {
		log.Warn("terraform destroy failed but nothing of the run remains; its state in the run directory is stale", "err", tfErr)
	}
	log.Info("gcp resources destroyed, nothing remains")
	return nil
}

// errText is an error's text, or "ok" for none.
func errText(err error) string {
	if err == nil {
		return "ok"
	}
	return err.Error()
}
