package kv

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/gocql/gocql"

	"github.com/ybbench/ybbench/bench"
	"github.com/ybbench/ybbench/bench/agentutil"
	"github.com/ybbench/ybbench/bench/ycql"
	"github.com/ybbench/ybbench/internal/exitcode"
	"github.com/ybbench/ybbench/record"
)

// Env is everything outside the process that `ybload kv` touches.
type Env struct {
	Stdout, Stderr io.Writer
	Getenv         func(string) string
	// Abort, when closed, cuts off operations in flight (second Ctrl-C).
	Abort   <-chan struct{}
	Version string
}

// Main runs `ybload kv <flags>` and returns the exit code: 0, 2 for bad
// flags, 5 for a database or workload error. Asked for help (--help, -h,
// --help <workload>) it writes the help on standard output and returns 0,
// before any other flag is checked.
func Main(ctx context.Context, args []string, env *Env) int {
	if workload, asked := helpRequest(args); asked {
		text, err := Help(workload)
		if err != nil {
			fmt.Fprintf(env.Stderr, "ybload kv: %v\n", err)
			return exitcode.Config
		}
		fmt.Fprint(env.Stdout, text)
		return exitcode.OK
	}
	err := run(ctx, args, env)
	if err != nil {
		fmt.Fprintf(env.Stderr, "ybload kv: %v\n", err)
	}
	return exitcode.Of(err)
}

func run(ctx context.Context, args []string, env *Env) error {
	processStart := time.Now()
	log := slog.New(slog.NewTextHandler(env.Stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
	o, err := ParseArgs(args, env.Getenv)
	if err != nil {
		return exitcode.Wrap(exitcode.Config, err)
	}
	cfg := o.CQLConfig()
	cfg.Logger = log
	if err := cfg.Validate(); err != nil {
		return exitcode.Wrap(exitcode.Config, err)
	}
	log.Info("Starting sample app...", "workload", o.Workload, "ybload", env.Version)
	for _, w := range o.NoEffect {
		log.Warn(w)
	}
	if o.UUID == "" {
		u, err := gocql.RandomUUID()
		if err != nil {
			return fmt.Errorf("key prefix: %w", err)
		}
		o.UUID = u.String()
	}
	admin, err := ycql.Probe(ctx, cfg)
	if err != nil {
		return exitcode.Wrap(exitcode.Workload, err)
	}
	ddl, err := prepareSchema(ctx, o, admin)
	admin.Close()
	if err != nil {
		return exitcode.Wrap(exitcode.Workload, err)
	}
	if o.SkipWorkload {
		log.Info("--skip_workload: not running the workload")
		return nil
	}
	sess, err := ycql.Open(ctx, cfg, admin.Server)
	if err != nil {
		return exitcode.Wrap(exitcode.Workload, err)
	}
	defer sess.Close()

	var initialRows int64 = -1
	if o.RowCountCheck {
		if initialRows, err = countRows(ctx, sess.S, o.Table); err != nil {
			return exitcode.Wrap(exitcode.Workload, err)
		}
	}
	keys := NewPartKeyGen(o.Part.KeyStart, o.Part.Keys, o.MaxWrittenKey)
	if o.Part.Split() {
		log.Info("This agent's part of the run", "agent", o.Part.Index, "of", o.Part.Count,
			"keys_from", o.Part.KeyStart, "keys", o.Part.Keys, "num_writes", o.Part.NumWrites, "num_reads", o.Part.NumReads)
	}
	var setupKeys int64
	if !o.ReadOnly && o.Writers == 0 {
		if setupKeys, err = pureReadSetup(ctx, o, sess, keys, log, env.Abort); err != nil {
			return err
		}
	}

	wl := NewWorkload(o, sess.S, keys, log, o.Workload, o.Writers, o.Readers, o.Part.NumWrites, o.Part.NumReads, o.Stagger)
	wl.newRetry = sess.StatementRetry
	settings := settingsOf(o, sess, ddl, env.Version)
	counters := func() map[string]int64 { return countersOf(wl, keys, sess, setupKeys) }
	ec := bench.Config{Threads: wl.Threads(), Duration: o.RunTime, Interval: bench.DefaultInterval, Abort: env.Abort,
		Seed: o.Seed, Logger: log}
	ec.Sinks = append(ec.Sinks, NewMetricsSink(env.Stdout, wl, keys, processStart, o.MetricsInterval))
	if o.Records != "" {
		f, err := os.OpenFile(o.Records, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o644)
		if err != nil {
			return exitcode.Errorf(exitcode.Config, "--ybload_records: %v", err)
		}
		defer f.Close()
		rs := bench.NewRecordSink(record.NewWriter(f), record.Meta{Agent: o.Agent, Workload: "kv", Phase: o.Workload, Settings: settings})
		rs.Counters = counters
		ec.Sinks = append(ec.Sinks, rs)
	}
	if o.CPUProfile != "" {
		stop, err := agentutil.StartCPUProfile(o.CPUProfile)
		if err != nil {
			return exitcode.Errorf(exitcode.Config, "--ybload_cpuprofile: %v", err)
		}
		defer stop()
	}
	// Agents on several clients start the measured workload together at the
	// instant the orchestrator chose: connected and set up first, so that
	// neither is part of the race.
	if err := agentutil.WaitUntil(ctx, agentutil.WallClock{}, o.StartAt, func(d time.Duration) {
		log.Info("Waiting for the start time", "wait", d.Round(time.Millisecond), "start_at", o.StartAt.Format(time.RFC3339Nano))
	}); err != nil {
		return exitcode.Wrap(exitcode.Workload, err)
	}
	log.Info("Starting the workload", "writers", o.Writers, "readers", o.Readers, "num_writes", o.NumWrites,
		"num_reads", o.NumReads, "run_time", o.RunTime, "routing", sess.Routing)
	res, err := bench.Run(ctx, wl, ec)
	if err != nil {
		return exitcode.Wrap(exitcode.Config, err)
	}
	c := wl.Snapshot()
	if o.RowCountCheck && o.NumWrites >= 0 {
		n, err := countRows(ctx, sess.S, o.Table)
		switch {
		case err != nil:
			log.Error("Row count check failed", "err", err)
		case n != c.WriteOps+initialRows:
			log.Error(fmt.Sprintf("Number of rows %d does not match the keys written %d plus the initial rows %d", n, c.WriteOps, initialRows))
		default:
			log.Info("Row count check passed", "rows", n)
		}
	}
	if o.SanityCheckAtEnd {
		if c.ReadOps+c.WriteOps == 0 {
			log.Error("Expected non-zero number of IOPS.")
		}
		if c.Exceptions > 0 || c.FailedThreads > 0 {
			log.Error("Hit failures during workload.")
		}
	}
	if o.Summary != "" {
		if err := writeSummary(o.Summary, summaryOf(res, settings, counters(), o.Workload)); err != nil {
			return fmt.Errorf("write the JSON summary: %w", err)
		}
	}
	log.Info("The sample app has finished", "stop", res.Stop, "reads", c.ReadOps, "keys_written", c.WriteOps,
		"verify_failures", c.VerifyFailed, "exceptions", c.Exceptions)
	if res.Err != nil {
		return exitcode.Wrap(exitcode.Workload, fmt.Errorf("the run stopped early: %w", res.Err))
	}
	return nil
}

// prepareSchema runs the reference's DDL through the admin session, in its
// order: keyspace, the table dropped if asked, the table.
func prepareSchema(ctx context.Context, o *Options, a *ycql.Admin) ([]string, error) {
	var ddl []string
	exec := func(stmt string) error {
		ddl = append(ddl, stmt)
		if err := a.S.Query(stmt).WithContext(ctx).Consistency(gocql.One).Exec(); err != nil {
			return fmt.Errorf("%s: %w", strings.TrimSuffix(stmt, ";"), err)
		}
		return nil
	}
	if !o.SkipDDL {
		rf := o.ReplicationFactor
		if rf == 0 {
			rf = ycql.DefaultReplicationFactor(a.Server.Nodes)
		}
		if err := exec(KeyspaceCQL(o.Keyspace, rf)); err != nil {
			return ddl, err
		}
	}
	if o.DropTable != "" {
		if err := exec("DROP TABLE IF EXISTS " + o.Keyspace + "." + o.DropTable + ";"); err != nil {
			return ddl, err
		}
	}
	if !o.SkipDDL && !o.SkipWorkload {
		if err := exec(strings.Replace(TableCQL(o.Table, o.TableTTL), "EXISTS "+o.Table, "EXISTS "+o.Keyspace+"."+o.Table, 1)); err != nil {
			return ddl, err
		}
	}
	return ddl, nil
}

// pureReadSetup is the reference's setup for runs without writers: 100,000
// keys written by 16 threads (8 for the batch workload), not measured; an
// agent sharing the run writes its part of them.
func pureReadSetup(ctx context.Context, o *Options, sess *ycql.Session, keys *KeyGen, log *slog.Logger, abort <-chan struct{}) (int64, error) {
	n := 16
	if o.Workload == WorkloadBatchKV {
		n = 8
	}
	log.Info(fmt.Sprintf("Using %d writer threads for pure read setup.", n))
	wl := NewWorkload(o, sess.S, keys, log, o.Workload+" setup", n, 0, o.Part.SetupKeys, -1, 0)
	wl.newRetry = sess.StatementRetry
	res, err := bench.Run(ctx, wl, bench.Config{Threads: n, Interval: bench.DefaultInterval, Abort: abort, Seed: o.Seed ^ 0x5e7, Logger: log})
	if err != nil {
		return 0, exitcode.Wrap(exitcode.Config, err)
	}
	if res.Err != nil {
		return 0, exitcode.Wrap(exitcode.Workload, fmt.Errorf("pure read setup: %w", res.Err))
	}
	c := wl.Snapshot()
	log.Info("Setup step for pure reads done.", "keys", c.WriteOps, "max_written_key", keys.MaxWritten())
	return c.WriteOps, ctx.Err()
}

func countRows(ctx context.Context, s *gocql.Session, table string) (int64, error) {
	var n int64
	err := s.Query("SELECT COUNT(*) FROM " + table).WithContext(ctx).Consistency(gocql.One).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("count the rows of %s: %w", table, err)
	}
	return n, nil
}

func countersOf(wl *Workload, keys *KeyGen, sess *ycql.Session, setupKeys int64) map[string]int64 {
	c := wl.Snapshot()
	m := map[string]int64{
		"reads": c.ReadOps, "keys_written": c.WriteOps, "write_batches": c.Batches,
		"read_verify_failures": c.VerifyFailed, "read_row_count_mismatches": c.RowCount,
		"exceptions": c.Exceptions, "failed_threads": c.FailedThreads,
		"max_written_key": keys.MaxWritten(), "max_generated_key": keys.MaxGenerated(), "failed_keys": keys.Failed(),
		"setup_keys": setupKeys,
	}
	for k, v := range sess.Stats() {
		m[k] = v
	}
	return m
}

func settingsOf(o *Options, sess *ycql.Session, ddl []string, version string) map[string]string {
	s := sess.Settings()
	s["ybload.version"] = version
	s["kv.workload"] = o.Workload
	s["kv.read_consistency"] = "QUORUM"
	if o.LocalReads {
		s["kv.read_consistency"] = "ONE (--local_reads)"
	}
	s["kv.write_consistency"] = "QUORUM"
	s["kv.key_prefix"] = o.UUID
	s["kv.table"] = o.Keyspace + "." + o.Table
	s["kv.ddl"] = strings.Join(ddl, " ")
	s["kv.value_size"] = strconv.Itoa(o.ValueSize)
	s["kv.batch_size"] = strconv.Itoa(o.BatchSize)
	s["kv.threads_read"] = strconv.Itoa(o.Readers)
	s["kv.threads_write"] = strconv.Itoa(o.Writers)
	s["kv.num_reads"] = strconv.FormatInt(o.NumReads, 10)
	s["kv.num_writes"] = strconv.FormatInt(o.NumWrites, 10)
	s["kv.num_unique_keys"] = strconv.FormatInt(o.UniqueKeys, 10)
	s["kv.run_time"] = o.RunTime.String()
	s["kv.thread_stagger"] = o.Stagger.String()
	s["kv.seed"] = strconv.FormatUint(o.Seed, 10)
	if p := o.Part; p.Split() {
		// A deviation from yb-sample-apps, which has one process per run:
		// said in the records whenever it is on.
		s["kv.agent"] = strconv.Itoa(p.Index) + " of " + strconv.Itoa(p.Count)
		s["kv.agent_keys"] = strconv.FormatInt(p.KeyStart, 10) + "-" + strconv.FormatInt(p.KeyStart+p.Keys-1, 10)
		s["kv.agent_num_writes"] = strconv.FormatInt(p.NumWrites, 10)
		s["kv.agent_num_reads"] = strconv.FormatInt(p.NumReads, 10)
		s["kv.agent_setup_keys"] = strconv.FormatInt(p.SetupKeys, 10)
	}
	keys := make([]string, 0, len(o.Set))
	for k := range o.Set {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var flags []string
	for _, k := range keys {
		flags = append(flags, "--"+k+" "+o.Set[k])
	}
	s["kv.flags"] = strings.Join(flags, " ")
	return s
}
