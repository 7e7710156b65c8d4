package pipeline

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/ybbench/ybbench/infra"
	"github.com/ybbench/ybbench/internal/exitcode"
	"github.com/ybbench/ybbench/provision"
)

// benchStarted reports whether a bench step began since the last teardown
// (agents may be running).
func (r *Run) benchStarted() bool { return r.ledger.StartedAny("bench/") }

// agentsStarted reports whether the agent may have been put on the clients
// since the last teardown.
func (r *Run) agentsStarted() bool { return r.ledger.Started(agentsStep) || r.benchStarted() }

// Down tears the run down from what the ledger and the run directory say,
// even after the orchestrator was killed: the database is stopped and
// wiped and the agents' files removed (on an inventory, that is all: no
// machine is deleted); then the provider destroys the hosts. A teardown
// that cannot finish returns an error with exit code 6 saying what remains.
//
// Only what was begun since the last teardown is undone: a torn-down run
// on which nothing began since is "already torn down".
func (r *Run) Down(ctx context.Context) error {
	if r.ledger.Record().State == RunTornDown && !r.ledger.Open() {
		// The last frame of a down with nothing to do still says what is left.
		r.progress().End("down", "already torn down, nothing left")
		return nil
	}
	about := "wipe the database and the agents' files, destroy the hosts"
	reuses := false
	if p, err := r.provider(); err == nil && p.Traits().ReusesMachines {
		about = "stop and wipe the database and the agents' files (no machine is deleted)"
		reuses = true
	}
	left := r.hostChanges()
	err := r.stepWith("down", about, nil, func() (map[string]string, error) {
		err := r.down(ctx)
		return r.usage(err != nil), err
	}, func(err error) string { return teardownOutcome(err, reuses, left, r.dir) })
	if err != nil {
		remains := []string{err.Error()}
		if lerr := r.ledger.SetState(RunTeardownIncomplete, remains); lerr != nil {
			err = errors.Join(err, lerr)
		}
		return exitcode.Wrap(exitcode.Teardown, fmt.Errorf("teardown incomplete: %w\nresources may remain; run `ybbench down --run %s` to retry", err, r.dir))
	}
	if err := r.ledger.SetState(RunTornDown, nil); err != nil {
		return exitcode.Wrap(exitcode.Tool, fmt.Errorf("the run was torn down, but the ledger does not say so: %w", err))
	}
	return nil
}

// usage is what the down step records of a cloud run's hosts: the hours
// from their creation (the cluster's, else the up step's start) to now,
// and their cost (usageDetails); nil for other providers, or when no up
// began since the last teardown.
func (r *Run) usage(remain bool) map[string]string {
	reg := r.deps.registry()
	if _, cloud := r.spec.cloudOf(reg); !cloud {
		return nil
	}
	var created time.Time
	if r.cluster != nil {
		created = r.cluster.CreatedAt
	}
	if created.IsZero() {
		rec := r.ledger.Record()
		for _, st := range rec.Steps {
			if st.Name == "up" && st.Epoch == rec.Epoch {
				created = st.Started
			}
		}
	}
	spec, err := r.spec.clusterSpec(reg, r.profile())
	if created.IsZero() || err != nil {
		return nil
	}
	return usageDetails(spec, r.spec.Provider, created, time.Now().UTC(), remain)
}

func (r *Run) down(ctx context.Context) error {
	var errs []error
	c := r.cluster
	if c == nil {
		// Stopped during up (killed, or a failed create): the provider
		// works from the run directory and, in a cloud, the region and
		// project the run's settings gave it.
		c = &infra.Cluster{Name: r.ID(), Provider: r.spec.Provider, Meta: map[string]string{infra.MetaRunDir: r.dir}}
		if spec, err := r.spec.clusterSpec(r.deps.registry(), r.profile()); err == nil {
			if spec.Region != "" {
				c.Meta[infra.MetaRegion] = spec.Region
			}
			if v := spec.Options[infra.OptionProject]; v != "" {
				c.Meta[infra.MetaProject] = v
			}
		}
	}
	if r.cluster != nil && (r.ledger.Started("install") || r.agentsStarted()) {
		// Only what the run may have put on the machines is wiped: a run
		// that stopped at the preflight has nothing to remove (and its
		// unreachable host is no reason to leave the others unwiped). An
		// inventory's machines stay, so a wipe that fails is a teardown
		// that failed; other providers delete the machines next, and a
		// wipe that fails there (a host already gone) is only a warning.
		p, perr := r.provider()
		if err := r.wipe(ctx, c); err != nil {
			if perr != nil || p.Traits().ReusesMachines {
				errs = append(errs, err)
			} else {
				r.log().Warn("wiping the hosts before they are destroyed", "err", err)
			}
		}
	}
	p, err := r.provider()
	if err != nil {
		return errors.Join(append(errs, err)...)
	}
	if err := p.Destroy(ctx, c); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// wipe stops and wipes the database when its install began, and releases
// the run's own directory on the clients (the agent's files) when the
// agent may have been put there, both since the last teardown.
func (r *Run) wipe(ctx context.Context, c *infra.Cluster) error {
	if err := r.ensureRunner(); err != nil {
		return err
	}
	var errs []error
	if fl, err := r.deps.Flavor(r.spec.Flavor); err == nil && r.ledger.Started("install") {
		if err := fl.Wipe(ctx, r.runner, c); err != nil {
			errs = append(errs, fmt.Errorf("wipe the database: %w", err))
		}
	}
	clients := c.ByRole(infra.RoleClient)
	if !r.agentsStarted() {
		clients = nil
	}
	if r.benchStarted() {
		// An orchestrator killed mid-bench leaves its agents running: they
		// are stopped before their directory goes.
		r.StopAgents(ctx)
	}
	// The agent's files are in the run's own directory under the base:
	// only a directory this run marked is removed.
	agents := r.agents()
	_, err := provision.Parallel(ctx, clients, provision.ParallelOptions{}, func(ctx context.Context, h infra.Host) (struct{}, error) {
		return struct{}{}, agents.Remove(ctx, h)
	})
	if err != nil {
		errs = append(errs, fmt.Errorf("remove the agents' files: %w", err))
	}
	return errors.Join(errs...)
}
