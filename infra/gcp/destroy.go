package gcp

import (
	"context"
	"log/slog"

	"github.com/ybbench/ybbench/infra"
	"github.com/ybbench/ybbench/infra/terraform"
	"github.com/ybbench/ybbench/internal/exitcode"
)

// Destroy removes the run's resources with `terraform destroy`, then asks
// the Compute API what of the run remains, with the janitor's listing of
// the run: instances by its labels (in any zone), firewalls, subnetworks
// and networks by their names and marks. It continues past a failed
// destroy, and works from the cluster's Meta alone (cluster.json): the run
// directory, the project, the terraform binary that made the run (when no
// other is configured).
//
// What remains is an *infra.LeftoverError naming it and the janitor
// command that removes it, classified exitcode.Teardown. So is a check
// that could not be made, or that found a resource claiming the run whose
// marks the janitor cannot read (it leaves such a resource alone).
func (p *Provider) Destroy(ctx context.Context, c *infra.Cluster) error {
	if c == nil || c.Meta[MetaRunDir] == "" || c.Meta[MetaProject] == "" {
		return exitcode.Errorf(exitcode.Config, "gcp provider: Destroy: the cluster has no %s and %s in its meta (not made by the gcp provider?)",
			MetaRunDir, MetaProject)
	}
	runDir, project := c.Meta[MetaRunDir], c.Meta[MetaProject]
	log := p.log.With("run", c.Name)

	stack, tfErr := terraform.New(ctx, nil, runDir, terraform.WorkDir(tfDir(runDir)),
		terraform.Binary(terraform.RunBinary(p.terraformBin, c.Meta[infra.MetaTerraformBinary])), terraform.Logger(log))
	if tfErr == nil {
		tfErr = stack.Destroy(ctx)
	}
	if tfErr != nil {
		log.Warn("terraform destroy failed; checking what remains", "err", tfErr)
	}

	left, damaged, err := p.remains(ctx, project, c.Name, log)
	if err := infra.RemainsError(ProviderName, c.Name, "--project "+project, tfErr, left, damaged, err); err != nil {
		return exitcode.Errorf(exitcode.Teardown, "%w", err) // over the listing's own class (exit 3)
	}
	if tfErr != nil {
		log.Warn("terraform destroy failed but nothing of the run remains; its state in the run directory is stale", "err", tfErr)
	}
	log.Info("gcp resources destroyed, nothing remains")
	return nil
}

// remains lists what of the run is still in the project: the janitor's
// listing of the run, its damaged resources returned, not logged.
func (p *Provider) remains(ctx context.Context, project, runID string, log *slog.Logger) ([]infra.Resource, []error, error) {
	opts, err := p.clientOptions(ctx)
	if err != nil {
		return nil, nil, err
	}
	j, err := NewJanitor(ctx, project, JanitorClientOptions(opts...), JanitorLogger(log))
	if err != nil {
		return nil, nil, err
	}
	defer j.Close()
	return j.list(ctx, infra.JanitorFilter{RunID: runID})
}
