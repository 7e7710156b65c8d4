package aws

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	awssdk "github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
)

// janRecorder passes every call to the EC2 API it wraps and records the
// calls that change something ("DeleteVpc vpc-1"), and the janitor's
// waits ("sleep 2s") when its sleep is recorder.sleep, in the order they
// happened: the deletion order as the API saw it.
type janRecorder struct {
	janitorEC2
	mu    sync.Mutex
	calls []string
}

func (r *janRecorder) record(op string, ids ...string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.calls = append(r.calls, strings.TrimSpace(op+" "+strings.Join(ids, ",")))
}

// log returns the calls so far.
func (r *janRecorder) log() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.calls...)
}

// sleep records a wait and returns at once.
func (r *janRecorder) sleep(ctx context.Context, d time.Duration) error {
	r.record("sleep", d.String())
	return ctx.Err()
}

func (r *janRecorder) TerminateInstances(ctx context.Context, in *ec2.TerminateInstancesInput, o ...func(*ec2.Options)) (*ec2.TerminateInstancesOutput, error) {
	r.record("TerminateInstances", in.InstanceIds...)
	return r.janitorEC2.TerminateInstances(ctx, in, o...)
}

func (r *janRecorder) DeleteVolume(ctx context.Context, in *ec2.DeleteVolumeInput, o ...func(*ec2.Options)) (*ec2.DeleteVolumeOutput, error) {
	r.record("DeleteVolume", awssdk.ToString(in.VolumeId))
	return r.janitorEC2.DeleteVolume(ctx, in, o...)
}

func (r *janRecorder) DeleteKeyPair(ctx context.Context, in *ec2.DeleteKeyPairInput, o ...func(*ec2.Options)) (*ec2.DeleteKeyPairOutput, error) {
	r.record("DeleteKeyPair", awssdk.ToString(in.KeyName)+awssdk.ToString(in.KeyPairId))
	return r.janitorEC2.DeleteKeyPair(ctx, in, o...)
}

func (r *janRecorder) DeletePlacementGroup(ctx context.Context, in *ec2.DeletePlacementGroupInput, o ...func(*ec2.Options)) (*ec2.DeletePlacementGroupOutput, error) {
	r.record("DeletePlacementGroup", awssdk.ToString(in.GroupName))
	return r.janitorEC2.DeletePlacementGroup(ctx, in, o...)
}

func (r *janRecorder) DeleteSecurityGroup(ctx context.Context, in *ec2.DeleteSecurityGroupInput, o ...func(*ec2.Options)) (*ec2.DeleteSecurityGroupOutput, error) {
	r.record("DeleteSecurityGroup", awssdk.ToString(in.GroupId))
	return r.janitorEC2.DeleteSecurityGroup(ctx, in, o...)
}

func (r *janRecorder) DisassociateRouteTable(ctx context.Context, in *ec2.DisassociateRouteTableInput, o ...func(*ec2.Options)) (*ec2.DisassociateRouteTableOutput, error) {
	r.record("DisassociateRouteTable", awssdk.ToString(in.AssociationId))
	return r.janitorEC2.DisassociateRouteTable(ctx, in, o...)
}

func (r *janRecorder) DeleteRouteTable(ctx context.Context, in *ec2.DeleteRouteTableInput, o ...func(*ec2.Options)) (*ec2.DeleteRouteTableOutput, error) {
	r.record("DeleteRouteTable", awssdk.ToString(in.RouteTableId))
	return r.janitorEC2.DeleteRouteTable(ctx, in, o...)
}

func (r *janRecorder) DetachInternetGateway(ctx context.Context, in *ec2.DetachInternetGatewayInput, o ...func(*ec2.Options)) (*ec2.DetachInternetGatewayOutput, error) {
	r.record("DetachInternetGateway", awssdk.ToString(in.InternetGatewayId))
	return r.janitorEC2.DetachInternetGateway(ctx, in, o...)
}

func (r *janRecorder) DeleteInternetGateway(ctx context.Context, in *ec2.DeleteInternetGatewayInput, o ...func(*ec2.Options)) (*ec2.DeleteInternetGatewayOutput, error) {
	r.record("DeleteInternetGateway", awssdk.ToString(in.InternetGatewayId))
	return r.janitorEC2.DeleteInternetGateway(ctx, in, o...)
}

func (r *janRecorder) DeleteSubnet(ctx context.Context, in *ec2.DeleteSubnetInput, o ...func(*ec2.Options)) (*ec2.DeleteSubnetOutput, error) {
	r.record("DeleteSubnet", awssdk.ToString(in.SubnetId))
	return r.janitorEC2.DeleteSubnet(ctx, in, o...)
}

func (r *janRecorder) DeleteVpc(ctx context.Context, in *ec2.DeleteVpcInput, o ...func(*ec2.Options)) (*ec2.DeleteVpcOutput, error) {
	r.record("DeleteVpc", awssdk.ToString(in.VpcId))
	return r.janitorEC2.DeleteVpc(ctx, in, o...)
}

// janOpsInOrder checks that the recorded calls of each op in ops all come
// after every call of the ops before it, and that each op was called:
// the dependency order of a deletion.
func janOpsInOrder(calls []string, ops ...string) error {
	last := -1
	for _, op := range ops {
		is := func(c string) bool { return strings.HasPrefix(c, op+" ") || c == op }
		n := 0
		for i, c := range calls {
			if !is(c) {
				continue
			}
			if i < last {
				return fmt.Errorf("%q (call %d) comes before a call of an op that must go first (call %d)\ncalls: %q", c, i, last, calls)
			}
			n++
		}
		if n == 0 {
			return fmt.Errorf("no %s call\ncalls: %q", op, calls)
		}
		for i, c := range calls {
			if is(c) {
				last = max(last, i)
			}
		}
	}
	return nil
}
