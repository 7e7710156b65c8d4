package aws

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/aws/smithy-go"
	"github.com/ybbench/ybbench/infra"
)

// janDependencyRetry paces deletes refused with DependencyViolation:
// on AWS a terminated instance's network interfaces take a minute or two
// to go, and until then its security group and subnet are in use.
var janDependencyRetry = infra.Backoff{First: 2 * time.Second, Max: 30 * time.Second, Budget: 5 * time.Minute}

// janTerminateWait paces the wait for instances to be terminated (the
// SDK's waiter polls every 15 s; instances usually go within minutes).
var janTerminateWait = infra.Backoff{First: 5 * time.Second, Max: 15 * time.Second, Budget: 10 * time.Minute}

// Error codes the janitor tells apart.
const (
	janCodeDependencyViolation = "DependencyViolation"
	janCodeVolumeInUse         = "VolumeInUse"
	janCodePlacementGroupInUse = "InvalidPlacementGroup.InUse"
)

// janGoneCodes are the answers that mean the resource (or association,
// attachment) is not there any more: another janitor, the instance's
// termination or terraform got to it first, which is what was wanted.
var janGoneCodes = []string{
	"InvalidInstanceID.NotFound", "InvalidVolume.NotFound", "InvalidKeyPair.NotFound",
	"InvalidPlacementGroup.Unknown", "InvalidGroup.NotFound", "InvalidRouteTableID.NotFound",
	"InvalidAssociationID.NotFound", "InvalidInternetGatewayID.NotFound", "Gateway.NotAttached",
	"InvalidSubnetID.NotFound", "InvalidVpcID.NotFound",
}

// janAPICode is the API's error code in err ("" when err is not an API
// answer).
func janAPICode(err error) string {
	var ae smithy.APIError
	if errors.As(err, &ae) {
		return ae.ErrorCode()
	}
	return ""
}

// janIsGone reports whether err says the thing is gone already.
func janIsGone(err error) bool { return slices.Contains(janGoneCodes, janAPICode(err)) }

// deleting runs op, one delete call, until it succeeds or finds the thing
// gone (both nil), fails with a code not in retryOn (that error), or the
// backoff's budget is spent (the last refusal, saying how long it lasted).
func (j *Janitor) deleting(ctx context.Context, retryOn []string, op func(context.Context) error) error {
	var slept time.Duration
	for attempt := 1; ; attempt++ {
		err := op(ctx)
		if err == nil || janIsGone(err) {
			return nil
		}
		if !slices.Contains(retryOn, janAPICode(err)) {
			return err
		}
		d, ok := j.retry.After(attempt, slept)
		if !ok {
			return fmt.Errorf("%w (refused %d times over %s)", err, attempt, slept)
		}
		j.log.Debug("refused, retrying", "code", janAPICode(err), "attempt", attempt, "wait", d)
		if serr := j.sleep(ctx, d); serr != nil {
			return fmt.Errorf("%w (stopped retrying: %w)", err, serr)
		}
		slept += d
	}
}
