package gcp

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	compute "cloud.google.com/go/compute/apiv1"
	"cloud.google.com/go/compute/apiv1/computepb"
	"google.golang.org/api/googleapi"

	"github.com/ybbench/ybbench/infra"
	"github.com/ybbench/ybbench/internal/exitcode"
)

// janInUseRetry paces the deletes refused with resourceInUseByAnotherResource:
// a subnetwork or network is still referred to for a short while after
// the instances' or firewalls' own operations are DONE. Waits of 5, 10,
// 20, 40 and 60 s, six attempts in all.
var janInUseRetry = infra.Backoff{First: 5 * time.Second, Max: time.Minute, Budget: 135 * time.Second}

// janParallel is how many deletions of one kind run at once: each waits
// for its operation (a minute or so for an instance), and a project's
// API rate limits are far above this.
const janParallel = 8

// The error's identifiers for "still in use", as the API reports them on
// the DELETE call (googleapi reason) and in an operation (error code).
const (
	janInUseReason = "resourceInUseByAnotherResource"
	janInUseCode   = "RESOURCE_IN_USE_BY_ANOTHER_RESOURCE"
)

// Delete deletes rs kind by kind in dependency order (instances,
// firewalls, subnetworks, networks; the resources of one kind together),
// waiting for each deletion's operation. It continues past errors and
// returns what remains, in that order, with an error (exit 6) naming each
// failure. A resource already gone counts as deleted.
func (j *Janitor) Delete(ctx context.Context, rs []infra.Resource) ([]infra.Resource, error) {
	stages := make([][]infra.Resource, len(janOrder))
	var unknown []infra.Resource
	for _, r := range rs {
		if i := slices.Index(janOrder, r.Type); i >= 0 {
			stages[i] = append(stages[i], r)
		} else {
			unknown = append(unknown, r)
		}
	}
	var remaining []infra.Resource
	var errs []error
	for _, stage := range stages {
		for i, err := range j.janDeleteAll(ctx, stage) {
			if err != nil {
				remaining = append(remaining, stage[i])
				errs = append(errs, err)
			}
		}
	}
	for _, r := range unknown {
		remaining = append(remaining, r)
		errs = append(errs, fmt.Errorf("%s: not a kind the gcp janitor deletes (it deletes %s)", r, strings.Join(janOrder, ", ")))
	}
	if len(errs) == 0 {
		return nil, nil
	}
	return remaining, exitcode.Wrap(exitcode.Teardown, fmt.Errorf("gcp janitor: %d of %d resource(s) remain in project %s: %w",
		len(remaining), len(rs), j.project, errors.Join(errs...)))
}

// janDeleteAll deletes rs, janParallel at a time; the i-th error is rs[i]'s.
func (j *Janitor) janDeleteAll(ctx context.Context, rs []infra.Resource) []error {
	errs := make([]error, len(rs))
	sem := make(chan struct{}, janParallel)
	var wg sync.WaitGroup
	for i, r := range rs {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			errs[i] = j.janDelete(ctx, r)
		})
	}
	wg.Wait()
	return errs
}

// janDelete deletes r, retrying while it is in use.
func (j *Janitor) janDelete(ctx context.Context, r infra.Resource) error {
	var waited time.Duration
	for attempt := 1; ; attempt++ {
		gone, err := j.janDeleteOnce(ctx, r)
		switch {
		case err == nil && gone:
			j.log.Info("already gone", "resource", r.String())
			return nil
		case err == nil:
			j.log.Info("deleted", "resource", r.String())
			return nil
		case !janInUse(err):
			return fmt.Errorf("delete %s: %w", r, err)
		}
		wait, ok := janInUseRetry.After(attempt, waited)
		if !ok {
			return fmt.Errorf("delete %s: still in use after %d attempts over %s: %w", r, attempt, waited, err)
		}
		j.log.Info("in use by another resource; will retry", "resource", r.String(), "attempt", attempt, "wait", wait)
		if serr := j.sleep(ctx, wait); serr != nil {
			return fmt.Errorf("delete %s: %w (it was in use: %w)", r, serr, err)
		}
		waited += wait
	}
}

// janDeleteOnce asks for r's deletion and waits for the operation to be
// DONE. gone is true when the resource was not there to delete.
func (j *Janitor) janDeleteOnce(ctx context.Context, r infra.Resource) (gone bool, err error) {
	var op *compute.Operation
	switch r.Type {
	case janTypeInstance:
		op, err = j.instances.Delete(ctx, &computepb.DeleteInstanceRequest{Project: j.project, Zone: r.Zone, Instance: r.ID})
	case janTypeFirewall:
		op, err = j.firewalls.Delete(ctx, &computepb.DeleteFirewallRequest{Project: j.project, Firewall: r.ID})
	case janTypeSubnetwork:
		op, err = j.subnetworks.Delete(ctx, &computepb.DeleteSubnetworkRequest{Project: j.project, Region: r.Region, Subnetwork: r.ID})
	case janTypeNetwork:
		op, err = j.networks.Delete(ctx, &computepb.DeleteNetworkRequest{Project: j.project, Network: r.ID})
	default:
		return false, fmt.Errorf("unknown kind %q", r.Type)
	}
	if err != nil {
		var ge *googleapi.Error
		if errors.As(err, &ge) && ge.Code == http.StatusNotFound {
			return true, nil
		}
		return false, err
	}
	// Wait polls the operation through the client's own endpoint. An
	// operation that fails says why in its error list; Wait reports only
	// the HTTP status, so the list is what is kept.
	werr := op.Wait(ctx)
	if e := op.Proto().GetError(); len(e.GetErrors()) > 0 {
		return false, janOpErrorOf(op.Proto())
	}
	if werr != nil {
		return false, fmt.Errorf("operation %s: %w", op.Name(), werr)
	}
	return false, nil
}

// janOpError is a failed operation's error list.
type janOpError struct {
	op     string
	codes  []string
	detail []string
}

func janOpErrorOf(op *computepb.Operation) *janOpError {
	e := &janOpError{op: op.GetName()}
	for _, x := range op.GetError().GetErrors() {
		e.codes = append(e.codes, x.GetCode())
		e.detail = append(e.detail, x.GetCode()+": "+x.GetMessage())
	}
	return e
}

func (e *janOpError) Error() string {
	return fmt.Sprintf("operation %s failed: %s", e.op, strings.Join(e.detail, "; "))
}

// janInUse reports whether err says the resource is still in use by
// another, on the call or in its operation.
func janInUse(err error) bool {
	var ge *googleapi.Error
	if errors.As(err, &ge) {
		for _, item := range ge.Errors {
			if item.Reason == janInUseReason {
				return true
			}
		}
	}
	var oe *janOpError
	return errors.As(err, &oe) && slices.Contains(oe.codes, janInUseCode)
}
