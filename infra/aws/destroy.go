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
		p.removeUntracked(ctx, stack, region, c.Name, log)
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

// removeUntracked deletes, before Terraform's destroy, what the region
// holds of the run that Terraform's state does not record: what an apply
// stopped by SIGKILL had made and not yet written down. Left there, a
// subnet or a group the state does not know holds the VPC it does know,
// and destroy waits out the provider's timeout on it (20 minutes for a
// VPC) before failing. Only the run's own resources are candidates (its
// id and ybbench's managed mark, as the janitor lists them); when the
// state cannot be read, nothing is deleted here and destroy goes on.
func (p *Provider) removeUntracked(ctx context.Context, stack *terraform.Stack, region, runID string, log *slog.Logger) {
	known, err := stack.StateValues(ctx)
	if err != nil {
		log.Warn("cannot read Terraform's state; leaving what it may not record to the check after destroy", "err", err)
		return
	}
	j, err := p.janitor(ctx, region, log)
	if err != nil {
		log.Warn("cannot list the run's resources before destroy", "err", err)
		return
	}
	all, _, err := j.list(ctx, infra.JanitorFilter{RunID: runID})
	if err != nil {
		log.Warn("cannot list the run's resources before destroy", "err", err)
		return
	}
	var untracked []infra.Resource
	for _, r := range all {
		if !known[r.ID] {
			untracked = append(untracked, r)
		}
	}
	if len(untracked) == 0 {
		return
	}
	log.Warn("the run has resources Terraform's state does not record (an apply stopped before it wrote them down); deleting them before destroy",
		"resources", resourceList(untracked))
	if left, err := j.Delete(ctx, untracked); err != nil {
		log.Warn("deleting what the state does not record", "err", err, "left", resourceList(left))
	}
}

// janitor is the run's region's janitor, on the provider's EC2 client
// when tests set one.
func (p *Provider) janitor(ctx context.Context, region string, log *slog.Logger) (*Janitor, error) {
	client := withJanitorEC2(p.ec2)
	if p.ec2 == nil {
		cfg, err := p.config(ctx, region)
		if err != nil {
			return nil, err
		}
		client = JanitorConfig(cfg)
	}
	return NewJanitor(ctx, region, client, JanitorLogger(log))
}

// remains lists what of the run is still in the region: the janitor's
// listing of the run, its damaged resources returned, not logged.
func (p *Provider) remains(ctx context.Context, region, runID string, log *slog.Logger) ([]infra.Resource, []error, error) {
	j, err := p.janitor(ctx, region, log)
	if err != nil {
		return nil, nil, err
	}
	return j.list(ctx, infra.JanitorFilter{RunID: runID})
}

// resourceList is rs for a log line.
func resourceList(rs []infra.Resource) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = r.String()
	}
	return out
}
