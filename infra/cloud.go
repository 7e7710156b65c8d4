package infra

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Options of a ClusterSpec that the cloud providers (aws, gcp) read. The
// pipeline fills them from the run's settings of the same names; a cloud
// provider's Check reports a missing or bad one as a *SettingError naming
// it.
const (
	// OptionSSHCIDR is the only source port 22 accepts (an IPv4 CIDR, /16
	// or longer, never 0.0.0.0/0).
	OptionSSHCIDR = "ssh_cidr"
	// OptionImage is the image: on aws an AMI id (ami-…) or ssm:<parameter
	// path>; on gcp <project>/<family>.
	OptionImage = "image"
	// OptionProject is the GCP project.
	OptionProject = "project"
	// OptionZoneFallback ("true"): when the instance type is not offered in
	// the zone, use the first zone of the region that offers it (recorded).
	OptionZoneFallback = "zone_fallback"
)

// Keys of Cluster.Meta that every provider that makes hosts reads in
// Destroy, so that a run stopped before its cluster was written (the
// pipeline then knows only the run's settings) can still be torn down:
// the run directory, and a cloud's region and project.
const (
	MetaRunDir  = "run_dir"
	MetaRegion  = "region"
	MetaProject = "project"
)

// Disks are each db host's data disks, all alike: Kind gp3 (EBS volumes
// made with the host), instance-store (the type's own NVMe disks) or
// local-ssd (GCP's, 375 GB each).
type Disks struct {
	Count  int
	Kind   string
	SizeGB int
}

// Resource is one thing a provider made in a cloud, as its marks (tags,
// labels, description) say: what Destroy finds left over and what the
// janitor lists and deletes.
type Resource struct {
	// Type is the resource's kind as its API names it (instance, vpc,
	// subnet, security-group, key-pair, …; on gcp instance, network,
	// subnetwork, firewall).
	Type string `json:"type"`
	// ID is what the API deletes it by (i-…, vpc-…; a GCP name).
	ID     string `json:"id"`
	Region string `json:"region,omitempty"`
	Zone   string `json:"zone,omitempty"`
	// RunID is the run that made it; Expires when its run said it may go.
	RunID   string    `json:"run_id"`
	Expires time.Time `json:"expires"`
}

// String is "type id (run R, expires T)".
func (r Resource) String() string {
	return fmt.Sprintf("%s %s (run %s, expires %s)", r.Type, r.ID, r.RunID, r.Expires.UTC().Format(time.RFC3339))
}

// JanitorFilter selects what a janitor lists: one run's resources
// (RunID set), else every resource past its expiry at Now. Resources
// without ybbench's managed mark are never selected.
type JanitorFilter struct {
	RunID string
	Now   time.Time
}

// Janitor finds and deletes a cloud's resources that ybbench made, by their
// marks alone (no cluster.json needed): the last layer of teardown.
type Janitor interface {
	// List returns the selected resources, in deletion order.
	List(ctx context.Context, f JanitorFilter) ([]Resource, error)
	// Delete deletes them in dependency order, continuing past errors, and
	// returns what remains (nil when everything went).
	Delete(ctx context.Context, rs []Resource) (remaining []Resource, err error)
}

// LeftoverError is Destroy's answer when the cloud still holds resources
// of the run after terraform destroy: exit 6, naming them and the janitor
// command that removes them. Providers return it wrapped with
// exitcode.Teardown.
type LeftoverError struct {
	Provider string
	RunID    string
	// Scope is the janitor's --region R or --project P.
	Scope     string
	Resources []Resource
}

func (e *LeftoverError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %d resource(s) of run %s remain after terraform destroy:", e.Provider, len(e.Resources), e.RunID)
	for _, r := range e.Resources {
		b.WriteString("\n  " + r.String())
	}
	fmt.Fprintf(&b, "\nremove them with: ybbench janitor --provider %s %s --run %s --yes", e.Provider, e.Scope, e.RunID)
	return b.String()
}

// RemainsError is a cloud provider's verdict on a run's teardown, once
// terraform destroy has run (destroyErr, its failure) and the provider's
// janitor has listed the run's remains in scope (the janitor's --region R
// or --project P): nil when nothing remains, else a *LeftoverError naming
// what does, joined, when the listing failed (listErr) or found resources
// claiming the run whose marks it cannot read (damaged, which the janitor
// leaves alone), with why the teardown is not verified and the janitor
// command to look. The provider classifies it exitcode.Teardown with
// exitcode.Errorf: not Wrap, as a listing failure carries its own class.
func RemainsError(provider, runID, scope string, destroyErr error, left []Resource, damaged []error, listErr error) error {
	var errs []error
	if len(left) > 0 {
		errs = append(errs, &LeftoverError{Provider: provider, RunID: runID, Scope: scope, Resources: left})
	}
	if err := errors.Join(append([]error{listErr}, damaged...)...); err != nil {
		destroyed := "ok"
		if destroyErr != nil {
			destroyed = destroyErr.Error()
		}
		errs = append(errs, fmt.Errorf("%s: cannot verify the teardown of run %s: %w (terraform destroy: %s); list what remains with: ybbench janitor --provider %s %s --run %s",
			provider, runID, err, destroyed, provider, scope, runID))
	}
	return errors.Join(errs...)
}

// ZoneFallback reads the OptionZoneFallback option: "" or "false" is off,
// "true" on; anything else is an error for the caller to name the option.
func ZoneFallback(v string) (bool, error) {
	switch v {
	case "", "false":
		return false, nil
	case "true":
		return true, nil
	}
	return false, fmt.Errorf("%q: want true or false", v)
}
