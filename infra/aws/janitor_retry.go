package aws

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/aws/smithy-go"
)

// janBackoff is a bounded exponential backoff: waits of first, 2×first, …
// each at most max, stopping before their sum would pass budget. The sum
// of the waits, not the clock, is bounded, so a test's recorded waits show
// the bound exactly.
type janBackoff struct {
	first, max, budget time.Duration
}

// janDependencyRetry paces deletes refused with DependencyViolation:
// on AWS a terminated instance's network interfaces take a minute or two
// to go, and until then its security group and subnet are in use.
var janDependencyRetry = janBackoff{first: 2 * time.Second, max: 30 * time.Second, budget: 5 * time.Minute}

// janTerminateWait paces the wait for instances to be terminated (the
// SDK's waiter polls every 15 s; instances usually go within minutes).
var janTerminateWait = janBackoff{first: 5 * time.Second, max: 15 * time.Second, budget: 10 * time.Minute}

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
	d, slept := j.retry.first, time.Duration(0)
	for attempt := 1; ; attempt++ {
		err := op(ctx)
		if err == nil || janIsGone(err) {
			return nil
		}
		if !slices.Contains(retryOn, janAPICode(err)) {
			return err
		}
		if slept+d > j.retry.budget {
			return fmt.Errorf("%w (refused %d times over %s)", err, attempt, slept)
		}
		j.log.Debug("refused, retrying", "code", janAPICode(err), "attempt", attempt, "wait", d)
		if serr := j.sleep(ctx, d); serr != nil {
			return fmt.Errorf("%w (stopped retrying: %w)", err, serr)
		}
		slept += d
		d = min(2*d, j.retry.max)
	}
}
