package provision

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/ybbench/ybbench/infra"
)

// HostError is a failure on one host.
type HostError struct {
	Host string
	Err  error
}

func (e *HostError) Error() string { return e.Host + ": " + e.Err.Error() }
func (e *HostError) Unwrap() error { return e.Err }

// ParallelOptions configure a fan-out.
type ParallelOptions struct {
	// Limit bounds how many hosts are worked on at once (0: all).
	Limit int
	// FailFast cancels the hosts not yet finished at the first failure;
	// otherwise every host runs to the end (teardown, collection).
	FailFast bool
}

// Parallel runs fn on every host, at most opts.Limit at once, and returns
// the results in host order. The error joins every host's failure.
func Parallel[T any](ctx context.Context, hosts []infra.Host, opts ParallelOptions, fn func(ctx context.Context, h infra.Host) (T, error)) ([]T, error) {
	limit := opts.Limit
	if limit <= 0 || limit > len(hosts) {
		limit = len(hosts)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	out := make([]T, len(hosts))
	errs := make([]error, len(hosts))
	sem := make(chan struct{}, max(limit, 1))
	var wg sync.WaitGroup
	for i, h := range hosts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			select {
			case sem <- struct{}{}:
			case <-ctx.Done():
				errs[i] = &HostError{Host: h.Name, Err: fmt.Errorf("not started: %w", ctx.Err())}
				return
			}
			defer func() { <-sem }()
			v, err := fn(ctx, h)
			out[i] = v
			if err != nil {
				errs[i] = &HostError{Host: h.Name, Err: err}
				if opts.FailFast {
					cancel()
				}
			}
		}()
	}
	wg.Wait()
	return out, errors.Join(errs...)
}

// RunAll runs one script on every host in parallel and fails if any host's
// command failed or could not run.
func RunAll(ctx context.Context, r Runner, hosts []infra.Host, opts ParallelOptions, script string, ro ...RunOption) ([]Result, error) {
	return Parallel(ctx, hosts, opts, func(ctx context.Context, h infra.Host) (Result, error) {
		res, err := r.Run(ctx, h, script, ro...)
		if err != nil {
			return res, err
		}
		return res, res.Err()
	})
}
