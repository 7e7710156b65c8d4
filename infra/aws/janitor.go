package aws

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"time"

	awssdk "github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/ec2"

	"github.com/ybbench/ybbench/infra"
	"github.com/ybbench/ybbench/internal/awslog"
	"github.com/ybbench/ybbench/internal/exitcode"
)

// Janitor finds and deletes, in one region, what ybbench made on EC2 by
// the resources' tags alone: the last layer of teardown, for whatever the
// instances' self-destruct and terraform destroy left behind.
type Janitor struct {
	region string
	ec2    janitorEC2
	cfg    *awssdk.Config
	log    *slog.Logger
	// sleep waits between attempts; tests replace it so that they never
	// sleep and can see every wait.
	sleep func(ctx context.Context, d time.Duration) error
	// retry paces the deletes the cloud refuses for a while (a security
	// group whose network interfaces are still going away); terminate
	// paces the wait for instances to be terminated.
	retry, terminate infra.Backoff
}

var _ infra.Janitor = (*Janitor)(nil)

// janitorEC2 is the part of the EC2 API the janitor calls, exactly: a
// recording wrapper or a fake stands in for it in tests.
type janitorEC2 interface {
	janDescriber
	TerminateInstances(context.Context, *ec2.TerminateInstancesInput, ...func(*ec2.Options)) (*ec2.TerminateInstancesOutput, error)
	DeleteVolume(context.Context, *ec2.DeleteVolumeInput, ...func(*ec2.Options)) (*ec2.DeleteVolumeOutput, error)
	DeleteKeyPair(context.Context, *ec2.DeleteKeyPairInput, ...func(*ec2.Options)) (*ec2.DeleteKeyPairOutput, error)
	DeletePlacementGroup(context.Context, *ec2.DeletePlacementGroupInput, ...func(*ec2.Options)) (*ec2.DeletePlacementGroupOutput, error)
	DeleteSecurityGroup(context.Context, *ec2.DeleteSecurityGroupInput, ...func(*ec2.Options)) (*ec2.DeleteSecurityGroupOutput, error)
	DisassociateRouteTable(context.Context, *ec2.DisassociateRouteTableInput, ...func(*ec2.Options)) (*ec2.DisassociateRouteTableOutput, error)
	DeleteRouteTable(context.Context, *ec2.DeleteRouteTableInput, ...func(*ec2.Options)) (*ec2.DeleteRouteTableOutput, error)
	DetachInternetGateway(context.Context, *ec2.DetachInternetGatewayInput, ...func(*ec2.Options)) (*ec2.DetachInternetGatewayOutput, error)
	DeleteInternetGateway(context.Context, *ec2.DeleteInternetGatewayInput, ...func(*ec2.Options)) (*ec2.DeleteInternetGatewayOutput, error)
	DeleteSubnet(context.Context, *ec2.DeleteSubnetInput, ...func(*ec2.Options)) (*ec2.DeleteSubnetOutput, error)
	DeleteVpc(context.Context, *ec2.DeleteVpcInput, ...func(*ec2.Options)) (*ec2.DeleteVpcOutput, error)
}

// janDescriber is the janitor's Describe calls, one per type it lists
// (they are also the ec2 paginators' client interfaces): all that listing
// a run's resources by their tags takes.
type janDescriber interface {
	DescribeInstances(context.Context, *ec2.DescribeInstancesInput, ...func(*ec2.Options)) (*ec2.DescribeInstancesOutput, error)
	DescribeVolumes(context.Context, *ec2.DescribeVolumesInput, ...func(*ec2.Options)) (*ec2.DescribeVolumesOutput, error)
	DescribeKeyPairs(context.Context, *ec2.DescribeKeyPairsInput, ...func(*ec2.Options)) (*ec2.DescribeKeyPairsOutput, error)
	DescribePlacementGroups(context.Context, *ec2.DescribePlacementGroupsInput, ...func(*ec2.Options)) (*ec2.DescribePlacementGroupsOutput, error)
	DescribeSecurityGroups(context.Context, *ec2.DescribeSecurityGroupsInput, ...func(*ec2.Options)) (*ec2.DescribeSecurityGroupsOutput, error)
	DescribeRouteTables(context.Context, *ec2.DescribeRouteTablesInput, ...func(*ec2.Options)) (*ec2.DescribeRouteTablesOutput, error)
	DescribeInternetGateways(context.Context, *ec2.DescribeInternetGatewaysInput, ...func(*ec2.Options)) (*ec2.DescribeInternetGatewaysOutput, error)
	DescribeSubnets(context.Context, *ec2.DescribeSubnetsInput, ...func(*ec2.Options)) (*ec2.DescribeSubnetsOutput, error)
	DescribeVpcs(context.Context, *ec2.DescribeVpcsInput, ...func(*ec2.Options)) (*ec2.DescribeVpcsOutput, error)
}

// JanitorOption configures a Janitor.
type JanitorOption func(*Janitor)

// JanitorLogger sets the logger (nil: discard). Warnings (a resource
// whose ybbench tags are damaged, a type that cannot be listed) and each
// deletion go to it.
func JanitorLogger(l *slog.Logger) JanitorOption {
	return func(j *Janitor) {
		if l != nil {
			j.log = l
		}
	}
}

// JanitorConfig sets the AWS configuration the EC2 client is made from
// (credentials, endpoint, retries); its region is replaced by the
// janitor's. Without it the SDK's default chain is loaded (environment,
// shared files, instance role).
func JanitorConfig(cfg awssdk.Config) JanitorOption {
	return func(j *Janitor) { j.cfg = &cfg }
}

// withJanitorEC2 makes the janitor call c instead of a client of its own.
func withJanitorEC2(c janitorEC2) JanitorOption { return func(j *Janitor) { j.ec2 = c } }

// withJanitorSleep replaces the wait between attempts.
func withJanitorSleep(fn func(context.Context, time.Duration) error) JanitorOption {
	return func(j *Janitor) { j.sleep = fn }
}

// NewJanitor makes the janitor of one region. An empty region is a
// *infra.SettingError (exit 2): the janitor never guesses where to look.
func NewJanitor(ctx context.Context, region string, opts ...JanitorOption) (*Janitor, error) {
	if region == "" {
		return nil, exitcode.Wrap(exitcode.Config, &infra.SettingError{Setting: "region", Err: errors.New("not set: the janitor looks in one region, given with --region")})
	}
	j := &Janitor{
		region:    region,
		log:       slog.New(slog.NewTextHandler(io.Discard, nil)),
		sleep:     infra.Sleep,
		retry:     janDependencyRetry,
		terminate: janTerminateWait,
	}
	for _, o := range opts {
		o(j)
	}
	if j.ec2 != nil {
		return j, nil
	}
	var cfg awssdk.Config
	if j.cfg != nil {
		cfg = j.cfg.Copy()
	} else {
		var err error
		if cfg, err = config.LoadDefaultConfig(ctx, config.WithRegion(region), config.WithLogger(awslog.To(j.log))); err != nil {
			return nil, exitcode.Wrap(exitcode.Config, fmt.Errorf("aws janitor: loading the AWS configuration: %w", err))
		}
	}
	cfg.Region = region
	j.ec2 = ec2.NewFromConfig(cfg)
	return j, nil
}
