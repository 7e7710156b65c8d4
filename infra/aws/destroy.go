package aws

import (
	"context"
	"log/slog"

	"github.com/ybbench/ybbench/infra"
	"github.com/ybbench/ybbench/infra/terraform"
	"github.com/ybbench/ybbench/internal/exitcode"
)

// Destroy removes the run's resources with `terraform destroy` in the
// run's Terraform directory, then asks EC2 what of the run is left, with
// the janitor's listing for the run (terminated instances aside, since
// AWS shows them for an hour after they are gone). It works from the
// cluster's Meta alone (cluster.json): the run directory, the region, the
// terraform binary that made the run (when no other is configured).
//
// A failed terraform destroy is not the end: what counts is what remains.
// When something does, the error is an *infra.LeftoverError classified
// exitcode.Teardown, naming each resource and the janitor command that
// removes them. When the remains cannot all be listed, or one carries the
// run's id with tags the janitor cannot read (it leaves such a resource
// alone), the error is a Teardown one saying so and how to look.
func (p *Provider) Destroy(ctx context.Context, c *infra.Cluster) error {
	if c == nil || c.Meta[MetaRunDir] == "" {
		return exitcode.Errorf(exitcode.Config, "aws provider: Destroy: the cluster has no %q in its meta (not made by the aws provider?)", MetaRunDir)
	}
	runDir, region := c.Meta[MetaRunDir], c.Meta[MetaRegion]
	if region == "" && len(c.Hosts) > 0 {
		region = c.Hosts[0].Region
	}
	if region == "" {
		return exitcode.Errorf(exitcode.Config, "aws provider: Destroy: the cluster of run %s has no %q in its meta", c.Name, MetaRegion)
	}
	log := p.log.With("run", c.Name, "region", region)

	stack, tfErr := terraform.New(ctx, nil, runDir, terraform.Binary(terraform.RunBinary(p.terraformBin, c.Meta[MetaTerraformBinary])), terraform.Logger(log))
	if tfErr == nil {
		tfErr = stack.Destroy(ctx)
	}
	if tfErr != nil {
		log.Warn("terraform destroy failed; checking what remains", "err", tfErr)
	}

	left, damaged, err := p.remains(ctx, region, c.Name, log)
	if err := infra.RemainsError(ProviderName, c.Name, "--region "+region, tfErr, left, damaged, err); err != nil {
		return exitcode.Errorf(exitcode.Teardown, "%w", err) // over the listing's own class (exit 3)
	}
	if tfErr != nil {
		log.Warn("terraform destroy failed, but nothing of the run remains; its state in the run directory is stale", "err", tfErr)
	}
	log.Info("aws hosts destroyed, nothing of the run remains")
	return nil
}

// remains lists what of the run is still in the region: the janitor's
// listing of the run, its damaged resources returned, not logged.
func (p *Provider) remains(ctx context.Context, region, runID string, log *slog.Logger) ([]infra.Resource, []error, error) {
	client := withJanitorEC2(p.ec2)
	if p.ec2 == nil {
		cfg, err := p.config(ctx, region)
		if err != nil {
			return nil, nil, err
		}
		client = JanitorConfig(cfg)
	}
	j, err := NewJanitor(ctx, region, client, JanitorLogger(log))
	if err != nil {
		return nil, nil, err
	}
	return j.list(ctx, infra.JanitorFilter{RunID: runID})
}
