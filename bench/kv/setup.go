package kv

import (
	"context"
	"fmt"
	"log/slog"
	"strconv"

	"github.com/ybbench/ybbench/bench"
	"github.com/ybbench/ybbench/bench/ycql"
	"github.com/ybbench/ybbench/internal/exitcode"
)

// stopDuringSetup is the stop of a run interrupted in its pure-read setup,
// before the measured workload began.
const stopDuringSetup = "interrupted during set-up"

// pureReadSetup is the reference's setup for runs without writers: 100,000
// keys written by 16 threads (8 for the batch workload), not measured; an
// agent sharing the run writes its part of them. It returns the setup's
// workload and result, also when it was interrupted (ctx done).
func pureReadSetup(ctx context.Context, o *Options, sess *ycql.Session, keys *KeyGen, log *slog.Logger, abort <-chan struct{}) (*Workload, *bench.Result, error) {
	n := 16
	if o.Workload == WorkloadBatchKV {
		n = 8
	}
	log.Info(fmt.Sprintf("Using %d writer threads for pure read setup.", n))
	wl := NewWorkload(o, sess.S, keys, log, o.Workload+" setup", n, 0, o.Part.SetupKeys, -1, 0)
	wl.newRetry = sess.StatementRetry
	res, err := bench.Run(ctx, wl, bench.Config{Threads: n, Interval: bench.DefaultInterval, Abort: abort, Seed: o.Seed ^ 0x5e7, Logger: log})
	if err != nil {
		return nil, nil, exitcode.Wrap(exitcode.Config, err)
	}
	if res.Err != nil {
		return nil, nil, exitcode.Wrap(exitcode.Workload, fmt.Errorf("pure read setup: %w", res.Err))
	}
	if ctx.Err() == nil {
		log.Info("Setup step for pure reads done.", "keys", wl.Snapshot().WriteOps, "max_written_key", keys.MaxWritten())
	}
	return wl, res, nil
}

// setupInterrupted ends a run stopped during its pure-read setup as the
// run phase ends a stopped run (exit 0, the summary written): it says what
// was interrupted and how far it got, and the summary has no measured
// operation, the setup's keys among its counters.
func setupInterrupted(o *Options, setup *Workload, res *bench.Result, keys *KeyGen, sess *ycql.Session, settings map[string]string, log *slog.Logger) error {
	written := setup.Snapshot().WriteOps
	log.Warn(fmt.Sprintf("%s: %s of %s keys written; the workload did not start", stopDuringSetup, grouped(written), grouped(o.Part.SetupKeys)))
	if o.Summary != "" {
		s := summaryOf(&bench.Result{Workload: o.Workload, Start: res.Start, End: res.End, Stop: stopDuringSetup},
			settings, countersOf(setup, keys, sess, written), o.Workload)
		if err := writeSummary(o.Summary, s); err != nil {
			return fmt.Errorf("write the JSON summary: %w", err)
		}
	}
	log.Info("The sample app has finished", "stop", stopDuringSetup, "reads", 0, "setup_keys_written", written)
	return nil
}

// grouped writes n with its thousands grouped by commas (50,554).
func grouped(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := s[0] == '-'
	if neg {
		s = s[1:]
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	if neg {
		s = "-" + s
	}
	return s
}
