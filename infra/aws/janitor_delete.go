package aws

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	awssdk "github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/aws/aws-sdk-go-v2/service/ec2/types"

	"github.com/ybbench/ybbench/infra"
	"github.com/ybbench/ybbench/internal/exitcode"
)

// janDeleter deletes one type's resources and returns those that remain,
// each with its error.
type janDeleter func(j *Janitor, ctx context.Context, rs []infra.Resource) (left []infra.Resource, errs []error)

// janDeleters are the per-type deletes.
var janDeleters = map[string]janDeleter{
	janInstance:        (*Janitor).deleteInstances,
	janVolume:          janEach((*Janitor).deleteVolume),
	janKeyPair:         janEach((*Janitor).deleteKeyPair),
	janPlacementGroup:  janEach((*Janitor).deletePlacementGroup),
	janSecurityGroup:   janEach((*Janitor).deleteSecurityGroup),
	janRouteTable:      janEach((*Janitor).deleteRouteTable),
	janInternetGateway: janEach((*Janitor).deleteInternetGateway),
	janSubnet:          janEach((*Janitor).deleteSubnet),
	janVPC:             janEach((*Janitor).deleteVPC),
}

// Delete deletes rs (as List gave them) in dependency order, whatever
// their order in rs: instances (terminated, then waited for), volumes, key
// pairs and placement groups, security groups, route tables (their subnet
// associations first), internet gateways (detached first), subnets, VPCs.
// It goes on past a failure, retries a delete refused because something
// still depends on the resource with a bounded backoff, and counts a
// resource found gone as deleted. It returns what remains, in deletion
// order, with an error saying why for each (exit 6); nil when everything
// went. A resource of another region or type is not touched and remains.
func (j *Janitor) Delete(ctx context.Context, rs []infra.Resource) ([]infra.Resource, error) {
	byType := map[string][]infra.Resource{}
	var left []infra.Resource
	var errs []error
	for _, r := range rs {
		switch {
		case r.Region != j.region:
			left = append(left, r)
			errs = append(errs, fmt.Errorf("%s %s: in region %q, not this janitor's %q", r.Type, r.ID, r.Region, j.region))
		case janRank(r.Type) < 0:
			left = append(left, r)
			errs = append(errs, fmt.Errorf("%s %s: not a type the aws janitor deletes", r.Type, r.ID))
		default:
			byType[r.Type] = append(byType[r.Type], r)
		}
	}
	for _, typ := range janOrder {
		group := byType[typ]
		if len(group) == 0 {
			continue
		}
		janSort(group)
		if err := ctx.Err(); err != nil {
			left = append(left, group...)
			errs = append(errs, fmt.Errorf("%ss not deleted: %w", typ, err))
			continue
		}
		l, e := janDeleters[typ](j, ctx, group)
		left, errs = append(left, l...), append(errs, e...)
	}
	if len(left) == 0 && len(errs) == 0 {
		return nil, nil
	}
	janSort(left)
	return left, exitcode.Wrap(exitcode.Teardown, fmt.Errorf("aws janitor, region %s: %d resource(s) remain: %w", j.region, len(left), errors.Join(errs...)))
}

// janEach makes a janDeleter of a delete of one resource.
func janEach(del func(j *Janitor, ctx context.Context, r infra.Resource) error) janDeleter {
	return func(j *Janitor, ctx context.Context, rs []infra.Resource) (left []infra.Resource, errs []error) {
		for _, r := range rs {
			if err := del(j, ctx, r); err != nil {
				left = append(left, r)
				errs = append(errs, fmt.Errorf("%s %s: %w", r.Type, r.ID, err))
				continue
			}
			j.log.Info("deleted", "type", r.Type, "id", r.ID, "run", r.RunID, "region", j.region)
		}
		return left, errs
	}
}

// janBatch is how many instance ids go in one call: DescribeInstances
// takes at most 200 values in a filter (TerminateInstances 1000).
const janBatch = 200

// deleteInstances terminates the instances and waits until they are
// terminated: until then their volumes, security groups and subnets are
// in use. One id the API refuses fails a whole TerminateInstances call, so
// a refused batch is tried again one instance at a time.
func (j *Janitor) deleteInstances(ctx context.Context, rs []infra.Resource) (left []infra.Resource, errs []error) {
	failed := map[string]error{}
	var ids []string
	for _, r := range rs {
		ids = append(ids, r.ID)
	}
	terminate := func(ids []string) error {
		_, err := j.ec2.TerminateInstances(ctx, &ec2.TerminateInstancesInput{InstanceIds: ids})
		return err
	}
	for batch := range slices.Chunk(ids, janBatch) {
		err := terminate(batch)
		switch {
		case err == nil, len(batch) == 1 && janIsGone(err):
			continue
		case len(batch) == 1:
			failed[batch[0]] = err
			continue
		}
		for _, id := range batch {
			if err := terminate([]string{id}); err != nil && !janIsGone(err) {
				failed[id] = err
			}
		}
	}
	var waiting []string
	for _, id := range ids {
		if failed[id] == nil {
			waiting = append(waiting, id)
		}
	}
	for id, err := range j.waitTerminated(ctx, waiting) {
		failed[id] = err
	}
	for _, r := range rs {
		if err := failed[r.ID]; err != nil {
			left = append(left, r)
			errs = append(errs, fmt.Errorf("%s %s: %w", r.Type, r.ID, err))
			continue
		}
		j.log.Info("deleted", "type", r.Type, "id", r.ID, "run", r.RunID, "region", j.region)
	}
	return left, errs
}

// waitTerminated polls the instances until each is terminated or gone, and
// returns an error for each one that is not when the wait's budget is
// spent (or the API cannot say). It polls itself rather than through the
// SDK's waiter so that the waits are the janitor's, bounded and seen by
// tests.
func (j *Janitor) waitTerminated(ctx context.Context, ids []string) map[string]error {
	failed := map[string]error{}
	var slept time.Duration
	for poll := 1; len(ids) > 0; poll++ {
		states, err := j.instanceStates(ctx, ids)
		if err != nil {
			for _, id := range ids {
				failed[id] = fmt.Errorf("terminated, but its state is unknown: %w", err)
			}
			return failed
		}
		ids = slices.DeleteFunc(ids, func(id string) bool {
			s, seen := states[id]
			return !seen || s == types.InstanceStateNameTerminated
		})
		if len(ids) == 0 {
			break
		}
		d, ok := j.terminate.After(poll, slept)
		if !ok {
			for _, id := range ids {
				failed[id] = fmt.Errorf("still %s %s after it was terminated", states[id], slept)
			}
			break
		}
		if err := j.sleep(ctx, d); err != nil {
			for _, id := range ids {
				failed[id] = fmt.Errorf("still %s when the wait stopped: %w", states[id], err)
			}
			break
		}
		slept += d
	}
	return failed
}

// instanceStates describes the instances by an instance-id filter, which,
// unlike InstanceIds, does not fail the call for an id that is gone.
func (j *Janitor) instanceStates(ctx context.Context, ids []string) (map[string]types.InstanceStateName, error) {
	states := map[string]types.InstanceStateName{}
	for batch := range slices.Chunk(ids, janBatch) {
		in := &ec2.DescribeInstancesInput{Filters: []types.Filter{{Name: awssdk.String("instance-id"), Values: batch}}}
		for p := ec2.NewDescribeInstancesPaginator(j.ec2, in); p.HasMorePages(); {
			page, err := p.NextPage(ctx)
			if err != nil {
				return nil, err
			}
			for _, r := range page.Reservations {
				for _, i := range r.Instances {
					if i.State != nil {
						states[awssdk.ToString(i.InstanceId)] = i.State.Name
					}
				}
			}
		}
	}
	return states, nil
}

// deleteVolume deletes a volume; one still detaching from a terminated
// instance is retried.
func (j *Janitor) deleteVolume(ctx context.Context, r infra.Resource) error {
	return j.deleting(ctx, []string{janCodeVolumeInUse, janCodeDependencyViolation}, func(ctx context.Context) error {
		_, err := j.ec2.DeleteVolume(ctx, &ec2.DeleteVolumeInput{VolumeId: &r.ID})
		return err
	})
}

// deleteKeyPair deletes a key pair by name.
func (j *Janitor) deleteKeyPair(ctx context.Context, r infra.Resource) error {
	return j.deleting(ctx, nil, func(ctx context.Context) error {
		_, err := j.ec2.DeleteKeyPair(ctx, &ec2.DeleteKeyPairInput{KeyName: &r.ID})
		return err
	})
}

// deletePlacementGroup deletes a placement group by name; one whose
// instances are still going is retried.
func (j *Janitor) deletePlacementGroup(ctx context.Context, r infra.Resource) error {
	return j.deleting(ctx, []string{janCodePlacementGroupInUse, janCodeDependencyViolation}, func(ctx context.Context) error {
		_, err := j.ec2.DeletePlacementGroup(ctx, &ec2.DeletePlacementGroupInput{GroupName: &r.ID})
		return err
	})
}

// deleteSecurityGroup deletes a security group.
func (j *Janitor) deleteSecurityGroup(ctx context.Context, r infra.Resource) error {
	return j.deleting(ctx, []string{janCodeDependencyViolation}, func(ctx context.Context) error {
		_, err := j.ec2.DeleteSecurityGroup(ctx, &ec2.DeleteSecurityGroupInput{GroupId: &r.ID})
		return err
	})
}

// deleteRouteTable ends the route table's subnet associations, then
// deletes it. A main route table is refused: it goes with its VPC.
func (j *Janitor) deleteRouteTable(ctx context.Context, r infra.Resource) error {
	out, err := j.ec2.DescribeRouteTables(ctx, &ec2.DescribeRouteTablesInput{RouteTableIds: []string{r.ID}})
	if janIsGone(err) {
		return nil
	}
	if err != nil {
		return err
	}
	for _, t := range out.RouteTables {
		if janIsMainRouteTable(t) {
			return errors.New("its VPC's main route table: deleted with the VPC, not alone")
		}
		for _, a := range t.Associations {
			if err := j.deleting(ctx, nil, func(ctx context.Context) error {
				_, err := j.ec2.DisassociateRouteTable(ctx, &ec2.DisassociateRouteTableInput{AssociationId: a.RouteTableAssociationId})
				return err
			}); err != nil {
				return fmt.Errorf("disassociating %s: %w", awssdk.ToString(a.RouteTableAssociationId), err)
			}
		}
	}
	return j.deleting(ctx, []string{janCodeDependencyViolation}, func(ctx context.Context) error {
		_, err := j.ec2.DeleteRouteTable(ctx, &ec2.DeleteRouteTableInput{RouteTableId: &r.ID})
		return err
	})
}

// deleteInternetGateway detaches the gateway from its VPCs (refused while
// the VPC still maps public addresses: retried), then deletes it.
func (j *Janitor) deleteInternetGateway(ctx context.Context, r infra.Resource) error {
	out, err := j.ec2.DescribeInternetGateways(ctx, &ec2.DescribeInternetGatewaysInput{InternetGatewayIds: []string{r.ID}})
	if janIsGone(err) {
		return nil
	}
	if err != nil {
		return err
	}
	for _, g := range out.InternetGateways {
		for _, a := range g.Attachments {
			if err := j.deleting(ctx, []string{janCodeDependencyViolation}, func(ctx context.Context) error {
				_, err := j.ec2.DetachInternetGateway(ctx, &ec2.DetachInternetGatewayInput{InternetGatewayId: &r.ID, VpcId: a.VpcId})
				return err
			}); err != nil {
				return fmt.Errorf("detaching from %s: %w", awssdk.ToString(a.VpcId), err)
			}
		}
	}
	return j.deleting(ctx, []string{janCodeDependencyViolation}, func(ctx context.Context) error {
		_, err := j.ec2.DeleteInternetGateway(ctx, &ec2.DeleteInternetGatewayInput{InternetGatewayId: &r.ID})
		return err
	})
}

// deleteSubnet deletes a subnet.
func (j *Janitor) deleteSubnet(ctx context.Context, r infra.Resource) error {
	return j.deleting(ctx, []string{janCodeDependencyViolation}, func(ctx context.Context) error {
		_, err := j.ec2.DeleteSubnet(ctx, &ec2.DeleteSubnetInput{SubnetId: &r.ID})
		return err
	})
}

// deleteVPC deletes a VPC; its default security group, network ACL and
// main route table go with it.
func (j *Janitor) deleteVPC(ctx context.Context, r infra.Resource) error {
	return j.deleting(ctx, []string{janCodeDependencyViolation}, func(ctx context.Context) error {
		_, err := j.ec2.DeleteVpc(ctx, &ec2.DeleteVpcInput{VpcId: &r.ID})
		return err
	})
}
