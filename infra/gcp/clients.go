package gcp

import (
	"context"
	"fmt"

	compute "cloud.google.com/go/compute/apiv1"
	"google.golang.org/api/option"
)

// clients are the Compute Engine REST clients the provider uses, made
// together with one set of options (credentials, or a test server's
// endpoint) and closed together.
type clients struct {
	regions      *compute.RegionsClient
	zones        *compute.ZonesClient
	machineTypes *compute.MachineTypesClient
	images       *compute.ImagesClient
	instances    *compute.InstancesClient
	networks     *compute.NetworksClient
	subnetworks  *compute.SubnetworksClient
	firewalls    *compute.FirewallsClient
	closers      []func() error
}

// newClients makes every client with opts. Making a REST client sends no
// request.
func newClients(ctx context.Context, opts ...option.ClientOption) (c *clients, err error) {
	c = &clients{}
	defer func() {
		if err != nil {
			c.Close()
			c, err = nil, fmt.Errorf("compute client: %w", err)
		}
	}()
	if c.regions, err = compute.NewRegionsRESTClient(ctx, opts...); err != nil {
		return
	}
	c.closers = append(c.closers, c.regions.Close)
	if c.zones, err = compute.NewZonesRESTClient(ctx, opts...); err != nil {
		return
	}
	c.closers = append(c.closers, c.zones.Close)
	if c.machineTypes, err = compute.NewMachineTypesRESTClient(ctx, opts...); err != nil {
		return
	}
	c.closers = append(c.closers, c.machineTypes.Close)
	if c.images, err = compute.NewImagesRESTClient(ctx, opts...); err != nil {
		return
	}
	c.closers = append(c.closers, c.images.Close)
	if c.instances, err = compute.NewInstancesRESTClient(ctx, opts...); err != nil {
		return
	}
	c.closers = append(c.closers, c.instances.Close)
	if c.networks, err = compute.NewNetworksRESTClient(ctx, opts...); err != nil {
		return
	}
	c.closers = append(c.closers, c.networks.Close)
	if c.subnetworks, err = compute.NewSubnetworksRESTClient(ctx, opts...); err != nil {
		return
	}
	c.closers = append(c.closers, c.subnetworks.Close)
	if c.firewalls, err = compute.NewFirewallsRESTClient(ctx, opts...); err != nil {
		return
	}
	c.closers = append(c.closers, c.firewalls.Close)
	return c, nil
}

// Close closes every client that was made.
func (c *clients) Close() {
	for _, f := range c.closers {
		_ = f()
	}
	c.closers = nil
}
