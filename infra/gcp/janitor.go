package gcp

import (
	"context"
	"errors"
	"log/slog"
	"time"

	compute "cloud.google.com/go/compute/apiv1"
	"google.golang.org/api/option"

	"github.com/ybbench/ybbench/infra"
	"github.com/ybbench/ybbench/internal/exitcode"
)

// The kinds of the resources a run makes on GCP (terraform/gcp), as the
// janitor's infra.Resource.Type names them. A run's boot disks are
// deleted with their instances (auto_delete) and are not listed.
const (
	janTypeInstance   = "instance"
	janTypeFirewall   = "firewall"
	janTypeSubnetwork = "subnetwork"
	janTypeNetwork    = "network"
)

// janOrder is the deletion order: a subnetwork cannot go while an
// instance uses it, nor a network while a subnetwork or firewall refers
// to it.
var janOrder = []string{janTypeInstance, janTypeFirewall, janTypeSubnetwork, janTypeNetwork}

// Janitor is the gcp janitor of one project (optionally one region): it
// finds ybbench's resources by their labels (instances) or by their names
// and descriptions (firewalls, subnetworks, networks, which take no
// labels), and deletes them in dependency order.
type Janitor struct {
	project string
	// region, when set, is the only region whose resources are listed.
	region string
	log    *slog.Logger

	instances   *compute.InstancesClient
	firewalls   *compute.FirewallsClient
	subnetworks *compute.SubnetworksClient
	networks    *compute.NetworksClient

	// sleep waits between the attempts at deleting a resource still in
	// use (tests make it instant).
	sleep func(ctx context.Context, d time.Duration) error
}

var _ infra.Janitor = (*Janitor)(nil)

// JanitorOption configures NewJanitor.
type JanitorOption func(*janConfig)

type janConfig struct {
	log    *slog.Logger
	region string
	client []option.ClientOption
}

// JanitorLogger sets the janitor's logger (default: discard).
func JanitorLogger(l *slog.Logger) JanitorOption { return func(c *janConfig) { c.log = l } }

// JanitorRegion restricts the janitor to one region: instances in its
// zones, subnetworks in it, and the networks and firewalls of runs whose
// subnetwork is in it (or gone).
func JanitorRegion(region string) JanitorOption {
	return func(c *janConfig) { c.region = region }
}

// JanitorClientOptions are passed to every Compute Engine client (an
// endpoint and no authentication in tests; credentials otherwise come
// from Application Default Credentials).
func JanitorClientOptions(opts ...option.ClientOption) JanitorOption {
	return func(c *janConfig) { c.client = append(c.client, opts...) }
}

// NewJanitor returns the janitor of a project. A missing project is a
// *infra.SettingError naming "project" (exit 2); so is a client that
// cannot be made, which without an endpoint option means no credentials.
func NewJanitor(ctx context.Context, project string, opts ...JanitorOption) (*Janitor, error) {
	if project == "" {
		return nil, exitcode.Wrap(exitcode.Config, &infra.SettingError{Setting: infra.OptionProject,
			Err: errors.New("the gcp janitor needs the project to look in (--project)")})
	}
	c := janConfig{log: slog.New(slog.DiscardHandler)}
	for _, o := range opts {
		o(&c)
	}
	j := &Janitor{project: project, region: c.region, sleep: infra.Sleep,
		log: c.log.With("provider", ProviderName, "project", project)}
	var err error
	if j.instances, err = compute.NewInstancesRESTClient(ctx, c.client...); err == nil {
		if j.firewalls, err = compute.NewFirewallsRESTClient(ctx, c.client...); err == nil {
			if j.subnetworks, err = compute.NewSubnetworksRESTClient(ctx, c.client...); err == nil {
				j.networks, err = compute.NewNetworksRESTClient(ctx, c.client...)
			}
		}
	}
	if err != nil {
		j.Close()
		return nil, exitcode.Errorf(exitcode.Config, "gcp janitor: Compute Engine client: %w "+
			"(credentials come from Application Default Credentials: GOOGLE_APPLICATION_CREDENTIALS naming a key file, "+
			"`gcloud auth application-default login`, or the metadata server of a GCE host)", err)
	}
	return j, nil
}

// Close releases the clients' connections.
func (j *Janitor) Close() error {
	var errs []error
	if j.instances != nil {
		errs = append(errs, j.instances.Close())
	}
	if j.firewalls != nil {
		errs = append(errs, j.firewalls.Close())
	}
	if j.subnetworks != nil {
		errs = append(errs, j.subnetworks.Close())
	}
	if j.networks != nil {
		errs = append(errs, j.networks.Close())
	}
	return errors.Join(errs...)
}
