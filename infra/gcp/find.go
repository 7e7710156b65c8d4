package gcp

import (
	"context"
	"errors"
	"fmt"
	"path"
	"strings"

	compute "cloud.google.com/go/compute/apiv1"
	"cloud.google.com/go/compute/apiv1/computepb"
	"google.golang.org/api/iterator"

	"github.com/ybbench/ybbench/infra"
	"github.com/ybbench/ybbench/infra/cloudtag"
)

// The kinds of resource a run makes on gcp, as infra.Resource.Type names
// them, in the order they must be deleted: instances use the subnetwork,
// firewalls and the subnetwork use the network.
const (
	TypeInstance   = "instance"
	TypeFirewall   = "firewall"
	TypeSubnetwork = "subnetwork"
	TypeNetwork    = "network"
)

// RunInstancesFilter is the instances.aggregatedList filter that selects
// a run's instances by their labels: managed, and the run id's label.
// The label is the run id cut to fit (cloudtag.LabelValue), so a caller
// still checks each answer's run hash (instanceResource, Found.Of).
func RunInstancesFilter(runID string) string {
	return fmt.Sprintf(`(labels.%s = "true") (labels.%s = "%s")`,
		cloudtag.LabelManaged, cloudtag.LabelRunID, cloudtag.LabelValue(runID))
}

// listInstances returns the project's instances in every zone that filter
// selects. A zone the API says it could not reach (a scope's UNREACHABLE
// warning) is an error naming it: what it holds is unknown, not absent.
func listInstances(ctx context.Context, cl *compute.InstancesClient, project, filter string) ([]*computepb.Instance, error) {
	it := cl.AggregatedList(ctx, &computepb.AggregatedListInstancesRequest{Project: project, Filter: &filter})
	var (
		out         []*computepb.Instance
		unreachable []string
	)
	for {
		pair, err := it.Next()
		if errors.Is(err, iterator.Done) {
			break
		}
		if err != nil {
			return out, &callError{what: "listing instances of project " + project, err: err}
		}
		if pair.Value == nil {
			continue
		}
		out = append(out, pair.Value.GetInstances()...)
		if pair.Value.GetWarning().GetCode() == "UNREACHABLE" {
			unreachable = append(unreachable, pair.Key)
		}
	}
	if len(unreachable) > 0 {
		return out, fmt.Errorf("listing instances of project %s: the API could not reach %s", project, strings.Join(unreachable, ", "))
	}
	return out, nil
}

// instanceResource is an instance as its labels describe it. An instance
// without the managed label gives cloudtag.ErrUnmanaged; one with it whose
// marks do not parse gives an error naming them.
func instanceResource(inst *computepb.Instance) (infra.Resource, cloudtag.Found, error) {
	f, err := cloudtag.ParseGCPLabels(inst.GetLabels())
	if err != nil {
		return infra.Resource{}, cloudtag.Found{}, fmt.Errorf("instance %s: %w", inst.GetName(), err)
	}
	zone := lastSegment(inst.GetZone())
	return infra.Resource{Type: TypeInstance, ID: inst.GetName(), Region: regionOfZone(zone), Zone: zone,
		RunID: f.Run, Expires: f.Expires}, f, nil
}

// describedResource is a network, subnetwork or firewall (which take no
// labels) as its description describes it (cloudtag.GCPDescription); a
// description without the managed mark gives cloudtag.ErrUnmanaged.
func describedResource(typ, name, region, description string) (infra.Resource, cloudtag.Found, error) {
	f, err := cloudtag.ParseGCPDescription(description)
	if err != nil {
		return infra.Resource{}, cloudtag.Found{}, fmt.Errorf("%s %s: %w", typ, name, err)
	}
	return infra.Resource{Type: typ, ID: name, Region: region, RunID: f.Run, Expires: f.Expires}, f, nil
}

// findRun lists what of a run remains in a project, in deletion order:
// its instances (in any zone, by label), then its firewalls, subnetwork
// (in region) and network, by the names cloudtag.NamesFor gives them and
// the marks in their descriptions. A resource named like the run's whose
// marks say another run, or none, is not the run's and not listed. It
// continues past a failed call and returns what it found with the
// failures joined.
func findRun(ctx context.Context, c *clients, project, region, runID string) ([]infra.Resource, error) {
	names, err := cloudtag.NamesFor(runID)
	if err != nil {
		return nil, err
	}
	var (
		out  []infra.Resource
		errs []error
	)
	insts, err := listInstances(ctx, c.instances, project, RunInstancesFilter(runID))
	errs = append(errs, err)
	for _, inst := range insts {
		r, f, err := instanceResource(inst)
		if errors.Is(err, cloudtag.ErrUnmanaged) || (err == nil && !f.Of(runID)) {
			continue // the filter's label is lossy: another run's with the same cut id
		}
		if err != nil {
			// Labelled with the run's id and managed, but the rest does
			// not parse: still something of the run's to report.
			r = infra.Resource{Type: TypeInstance, ID: inst.GetName(), Zone: lastSegment(inst.GetZone()), RunID: runID}
			r.Region = regionOfZone(r.Zone)
		}
		out = append(out, r)
	}

	type named struct {
		typ, name string
		get       func() (description string, err error)
	}
	lookups := []named{
		{TypeFirewall, names.FirewallSSH, func() (string, error) {
			fw, err := c.firewalls.Get(ctx, &computepb.GetFirewallRequest{Project: project, Firewall: names.FirewallSSH})
			return fw.GetDescription(), err
		}},
		{TypeFirewall, names.FirewallInternal, func() (string, error) {
			fw, err := c.firewalls.Get(ctx, &computepb.GetFirewallRequest{Project: project, Firewall: names.FirewallInternal})
			return fw.GetDescription(), err
		}},
		{TypeSubnetwork, names.Subnetwork, func() (string, error) {
			sn, err := c.subnetworks.Get(ctx, &computepb.GetSubnetworkRequest{Project: project, Region: region, Subnetwork: names.Subnetwork})
			return sn.GetDescription(), err
		}},
		{TypeNetwork, names.Network, func() (string, error) {
			n, err := c.networks.Get(ctx, &computepb.GetNetworkRequest{Project: project, Network: names.Network})
			return n.GetDescription(), err
		}},
	}
	for _, l := range lookups {
		if l.typ == TypeSubnetwork && region == "" {
			errs = append(errs, fmt.Errorf("%s %s: no region to look in", l.typ, l.name))
			continue
		}
		desc, err := l.get()
		if isNotFound(err) {
			continue
		}
		if err != nil {
			errs = append(errs, &callError{what: "looking up " + l.typ + " " + l.name, err: err})
			continue
		}
		reg := ""
		if l.typ == TypeSubnetwork {
			reg = region
		}
		r, f, err := describedResource(l.typ, l.name, reg, desc)
		if err != nil || !f.Of(runID) {
			continue
		}
		out = append(out, r)
	}
	return out, errors.Join(errs...)
}

// lastSegment is the name at the end of a resource URL or scope
// (".../zones/us-central1-a", "zones/us-central1-a" → "us-central1-a").
func lastSegment(s string) string { return path.Base(strings.TrimRight(s, "/")) }

// regionOfZone is the region a zone name is in (us-central1-a →
// us-central1): GCE zone names are the region's name and a letter.
func regionOfZone(zone string) string {
	if i := strings.LastIndexByte(zone, '-'); i > 0 {
		return zone[:i]
	}
	return ""
}
