package gcp

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"cloud.google.com/go/compute/apiv1/computepb"

	"github.com/ybbench/ybbench/infra"
	"github.com/ybbench/ybbench/infra/cloudtag"
	"github.com/ybbench/ybbench/internal/exitcode"
)

// janFound is one resource whose marks say ybbench made it.
type janFound struct {
	res   infra.Resource
	marks cloudtag.Found
}

// janDamaged is a resource marked as ybbench's whose marks cannot be
// read: the run hash it claims (its label, or its name's) and why.
type janDamaged struct {
	hash string
	err  error
}

// janLister lists one kind of resource: what is ybbench's, and what
// claims to be but whose marks are damaged.
type janLister func(context.Context, infra.JanitorFilter) ([]janFound, []janDamaged, error)

// List returns the project's resources that f selects, in deletion order:
// instances by their labels, firewalls, subnetworks and networks by a name
// cloudtag made and a description that marks them managed. A resource
// without the managed mark is never listed; one whose marks are damaged is
// left alone too, with a warning naming it. A listing the API could not
// complete (a call failing, a zone or region unreachable) is an error
// (exit 3), with nothing listed.
func (j *Janitor) List(ctx context.Context, f infra.JanitorFilter) ([]infra.Resource, error) {
	out, damaged, err := j.list(ctx, f)
	for _, d := range damaged {
		j.log.Warn("left alone: marked as ybbench's, but its marks cannot be read", "problem", d)
	}
	return out, err
}

// list is List, with the resources whose marks are damaged (those that
// claim f's run, when it names one) returned as errors naming them
// instead of logged: Destroy cannot call a run's teardown verified while
// one remains.
func (j *Janitor) list(ctx context.Context, f infra.JanitorFilter) ([]infra.Resource, []error, error) {
	if f.RunID == "" && f.Now.IsZero() {
		return nil, nil, errors.New("gcp janitor: the filter names neither a run nor a time to compare expiries with")
	}
	var all []janFound
	var damaged, errs []error
	for _, list := range []janLister{j.janListInstances, j.janListFirewalls, j.janListSubnetworks, j.janListNetworks} {
		found, bad, err := list(ctx, f)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		for _, d := range bad {
			if f.RunID == "" || d.hash == cloudtag.RunHash(f.RunID) {
				damaged = append(damaged, d.err)
			}
		}
		all = append(all, found...)
	}
	// A partial listing could delete a network's firewalls and leave the
	// hosts behind them: list everything or nothing.
	if len(errs) > 0 {
		return nil, nil, exitcode.Wrap(exitcode.Infra, fmt.Errorf("gcp janitor: listing project %s: %w", j.project, errors.Join(errs...)))
	}
	return janSelect(all, f, j.region), damaged, nil
}

// janInstanceFilter is the AggregatedList filter for a run's instances:
// the managed label, and the run's hash label (the run id label is
// cleaned to GCP's syntax and may be cut; the hash is exact). The answer
// is parsed again on our side: the filter only saves traffic.
func janInstanceFilter(f infra.JanitorFilter) string {
	q := fmt.Sprintf("labels.%s = %q", cloudtag.LabelManaged, "true")
	if f.RunID != "" {
		q = fmt.Sprintf("(%s) (labels.%s = %q)", q, cloudtag.LabelRunHash, cloudtag.RunHash(f.RunID))
	}
	return q
}

func (j *Janitor) janListInstances(ctx context.Context, f infra.JanitorFilter) ([]janFound, []janDamaged, error) {
	filter := janInstanceFilter(f)
	it := j.instances.AggregatedList(ctx, &computepb.AggregatedListInstancesRequest{Project: j.project, Filter: &filter})
	var found []janFound
	var damaged []janDamaged
	unreachable := janUnreachable{}
	for pair, err := range it.All() {
		if err != nil {
			return nil, nil, &callError{what: "listing instances", err: err}
		}
		unreachable.add(pair.Key, pair.Value.GetWarning(), it.Response)
		for _, in := range pair.Value.GetInstances() {
			zone := lastSegment(in.GetZone())
			if zone == "" {
				zone = strings.TrimPrefix(pair.Key, "zones/")
			}
			r, err := janFromLabels(janTypeInstance, in.GetName(), zone, in.GetLabels())
			switch {
			case errors.Is(err, cloudtag.ErrUnmanaged):
			case err != nil:
				damaged = append(damaged, janDamaged{hash: in.GetLabels()[cloudtag.LabelRunHash], err: err})
			default:
				found = append(found, r)
			}
		}
	}
	if err := unreachable.err("instances"); err != nil {
		return nil, nil, err
	}
	return found, damaged, nil
}

// Firewalls, subnetworks and networks are listed whole and selected here:
// a project holds few of them, and a name filter would be a second
// statement of cloudtag's naming rule.

func (j *Janitor) janListFirewalls(ctx context.Context, _ infra.JanitorFilter) ([]janFound, []janDamaged, error) {
	var found []janFound
	var damaged []janDamaged
	for fw, err := range j.firewalls.List(ctx, &computepb.ListFirewallsRequest{Project: j.project}).All() {
		if err != nil {
			return nil, nil, &callError{what: "listing firewalls", err: err}
		}
		found, damaged = janAddNamed(found, damaged, janTypeFirewall, fw.GetName(), fw.GetDescription(), "")
	}
	return found, damaged, nil
}

func (j *Janitor) janListSubnetworks(ctx context.Context, _ infra.JanitorFilter) ([]janFound, []janDamaged, error) {
	var found []janFound
	var damaged []janDamaged
	it := j.subnetworks.AggregatedList(ctx, &computepb.AggregatedListSubnetworksRequest{Project: j.project})
	unreachable := janUnreachable{}
	for pair, err := range it.All() {
		if err != nil {
			return nil, nil, &callError{what: "listing subnetworks", err: err}
		}
		unreachable.add(pair.Key, pair.Value.GetWarning(), it.Response)
		for _, sn := range pair.Value.GetSubnetworks() {
			region := lastSegment(sn.GetRegion())
			if region == "" {
				region = strings.TrimPrefix(pair.Key, "regions/")
			}
			found, damaged = janAddNamed(found, damaged, janTypeSubnetwork, sn.GetName(), sn.GetDescription(), region)
		}
	}
	if err := unreachable.err("subnetworks"); err != nil {
		return nil, nil, err
	}
	return found, damaged, nil
}

// janUnreachable collects the scopes an aggregated list could not reach
// (the page's unreachables, a scope's UNREACHABLE warning): what they hold
// is unknown, so the listing is incomplete.
type janUnreachable map[string]bool

// add notes a scope's warning and the unreachables of the page it came
// on (the iterator's Response is the page last fetched).
func (u janUnreachable) add(scope string, w *computepb.Warning, page any) {
	if w.GetCode() == "UNREACHABLE" {
		u[scope] = true
	}
	if p, ok := page.(interface{ GetUnreachables() []string }); ok {
		for _, s := range p.GetUnreachables() {
			u[s] = true
		}
	}
}

func (u janUnreachable) err(what string) error {
	if len(u) == 0 {
		return nil
	}
	return fmt.Errorf("%s: the API could not reach %s, so the listing is incomplete (retry, or restrict the janitor to another region)",
		what, strings.Join(slices.Sorted(maps.Keys(u)), ", "))
}

func (j *Janitor) janListNetworks(ctx context.Context, _ infra.JanitorFilter) ([]janFound, []janDamaged, error) {
	var found []janFound
	var damaged []janDamaged
	for n, err := range j.networks.List(ctx, &computepb.ListNetworksRequest{Project: j.project}).All() {
		if err != nil {
			return nil, nil, &callError{what: "listing networks", err: err}
		}
		found, damaged = janAddNamed(found, damaged, janTypeNetwork, n.GetName(), n.GetDescription(), "")
	}
	return found, damaged, nil
}

// janAddNamed appends a label-less resource to found when its name and
// description mark it as ybbench's, and to damaged when they claim so but
// cannot be read or disagree (the run it claims is its name's).
func janAddNamed(found []janFound, damaged []janDamaged, typ, name, description, region string) ([]janFound, []janDamaged) {
	r, err := janFromDescription(typ, name, description, region)
	switch {
	case errors.Is(err, cloudtag.ErrUnmanaged):
	case err != nil:
		hash, _ := cloudtag.RunHashOfName(name)
		damaged = append(damaged, janDamaged{hash: hash, err: err})
	default:
		found = append(found, r)
	}
	return found, damaged
}

// janFromLabels reads an instance's labels. cloudtag.ErrUnmanaged (not
// wrapped) means it is not ybbench's.
func janFromLabels(typ, name, zone string, labels map[string]string) (janFound, error) {
	marks, err := cloudtag.ParseGCPLabels(labels)
	if errors.Is(err, cloudtag.ErrUnmanaged) {
		return janFound{}, err
	}
	if err != nil {
		return janFound{}, fmt.Errorf("%s %s in %s: %w", typ, name, zone, err)
	}
	return janFound{res: infra.Resource{Type: typ, ID: name, Zone: zone, Region: regionOfZone(zone),
		RunID: marks.Run, Expires: marks.Expires}, marks: marks}, nil
}

// janFromDescription reads a firewall's, subnetwork's or network's marks:
// ybbench's only when its name carries a run hash (cloudtag.GCPName) and
// its description says managed, for the same run. cloudtag.ErrUnmanaged
// (not wrapped) means it is not ybbench's.
func janFromDescription(typ, name, description, region string) (janFound, error) {
	hash, ok := cloudtag.RunHashOfName(name)
	if !ok {
		return janFound{}, cloudtag.ErrUnmanaged
	}
	marks, err := cloudtag.ParseGCPDescription(description)
	if errors.Is(err, cloudtag.ErrUnmanaged) {
		return janFound{}, err
	}
	if err != nil {
		return janFound{}, fmt.Errorf("%s %s: %w", typ, name, err)
	}
	// A name of one run with the description of another was not made by
	// one run of ybbench: neither says which run may delete it.
	if marks.RunHash != hash {
		return janFound{}, fmt.Errorf("%s %s: its name is of run hash %s, its description of run %s (hash %s)", typ, name, hash, marks.Run, marks.RunHash)
	}
	return janFound{res: infra.Resource{Type: typ, ID: name, Region: region, RunID: marks.Run, Expires: marks.Expires},
		marks: marks}, nil
}

// janSelect keeps what f selects, within region when it is set, in
// deletion order. Networks and firewalls are global; with a region, they
// are kept unless their run still has a subnetwork only elsewhere (that
// subnetwork would keep the network, and its region's janitor takes both).
func janSelect(all []janFound, f infra.JanitorFilter, region string) []infra.Resource {
	subnetRegions := map[string]map[string]bool{}
	for _, x := range all {
		if x.res.Type == janTypeSubnetwork {
			if subnetRegions[x.marks.RunHash] == nil {
				subnetRegions[x.marks.RunHash] = map[string]bool{}
			}
			subnetRegions[x.marks.RunHash][x.res.Region] = true
		}
	}
	var out []infra.Resource
	for _, x := range all {
		if f.RunID != "" && !x.marks.Of(f.RunID) || f.RunID == "" && !x.marks.Expired(f.Now) {
			continue
		}
		if region != "" {
			switch x.res.Type {
			case janTypeInstance, janTypeSubnetwork:
				if x.res.Region != region {
					continue
				}
			default:
				if rs := subnetRegions[x.marks.RunHash]; len(rs) > 0 && !rs[region] {
					continue
				}
			}
		}
		out = append(out, x.res)
	}
	slices.SortStableFunc(out, func(a, b infra.Resource) int {
		return cmp.Or(cmp.Compare(slices.Index(janOrder, a.Type), slices.Index(janOrder, b.Type)),
			cmp.Compare(a.Zone+"/"+a.Region, b.Zone+"/"+b.Region), cmp.Compare(a.ID, b.ID))
	})
	return out
}
