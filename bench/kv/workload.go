package kv

import (
	"context"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gocql/gocql"

	"github.com/ybbench/ybbench/bench"
	"github.com/ybbench/ybbench/bench/ycql"
)

// The KV catalog: measurements named as the reference tool's metrics.
const (
	OpRead bench.Op = iota
	OpWrite
)

// Statuses of the KV catalog. A read whose value fails verification, or
// that finds no row, still counts as a read (the reference logs it and
// goes on); errors are split by kind.
const (
	StOK bench.Status = iota
	StVerifyFailed
	StRowCount
	StError
	StTimeout
	StUnavailable
)

// Catalog is the KV workloads' measurement catalog.
var Catalog = &bench.Catalog{
	Ops: []string{"Read", "Write"},
	Statuses: []bench.StatusDef{{Name: "OK", OK: true}, {Name: "VERIFY_FAILED", OK: true}, {Name: "ROW_COUNT", OK: true},
		{Name: "ERROR"}, {Name: "TIMEOUT"}, {Name: "UNAVAILABLE"}},
	Cleanup: -1,
}

// Statements of CassandraKeyValue (spec kv §3), on the session's keyspace.
func insertCQL(table string) string { return "INSERT INTO " + table + " (k, v) VALUES (?, ?);" }
func selectCQL(table string) string { return "SELECT k, v FROM " + table + " WHERE k = ?;" }

// TableCQL is the workloads' table, with the TTL clause when one is set.
func TableCQL(table string, ttl int64) string {
	s := "CREATE TABLE IF NOT EXISTS " + table + " (k varchar, v blob, primary key (k))"
	if ttl > 0 {
		s += " WITH default_time_to_live = " + strconv.FormatInt(ttl, 10)
	}
	return s + ";"
}

// KeyspaceCQL is the reference's keyspace DDL with the replication factor
// ybload chooses (the reference's is 1; YugabyteDB ignores it).
func KeyspaceCQL(keyspace string, rf int) string {
	return "CREATE KEYSPACE IF NOT EXISTS " + keyspace +
		" WITH REPLICATION = {'class': 'SimpleStrategy', 'replication_factor' : " + strconv.Itoa(rf) + "};"
}

// Workload is one phase of a KV workload: Writers writer threads (ids
// 0…W-1) then Readers reader threads, all on one shared session.
type Workload struct {
	o       *Options
	s       *gocql.Session
	keys    *KeyGen
	log     *slog.Logger
	name    string
	writers int
	readers int
	// numWrites / numReads bound the phase (-1: unbounded).
	numWrites, numReads int64
	stagger             time.Duration
	seed                uint64
	insert, sel         string
	readCL, writeCL     gocql.Consistency

	written, read atomic.Int64 // keys written and read, against the limits

	// newRetry, when set, gives each worker a retry policy of its own for
	// its statements (ycql.Session.StatementRetry).
	newRetry func() *ycql.RetryPolicy

	mu      sync.Mutex
	workers []*worker
	start   time.Time
}

// NewWorkload builds a phase of opts' workload over s.
func NewWorkload(o *Options, s *gocql.Session, keys *KeyGen, log *slog.Logger, name string, writers, readers int, numWrites, numReads int64, stagger time.Duration) *Workload {
	w := &Workload{o: o, s: s, keys: keys, log: log, name: name, writers: writers, readers: readers,
		numWrites: numWrites, numReads: numReads, stagger: stagger, seed: o.Seed,
		insert: insertCQL(o.Table), sel: selectCQL(o.Table), readCL: gocql.Quorum, writeCL: gocql.Quorum}
	if o.LocalReads {
		w.readCL = gocql.One
	}
	return w
}

// Threads is the phase's thread count.
func (w *Workload) Threads() int { return w.writers + w.readers }

// Name identifies the phase.
func (w *Workload) Name() string { return w.name }

// Catalog is the KV catalog.
func (w *Workload) Catalog() *bench.Catalog { return Catalog }

// NewWorker starts thread id after its stagger (the reference starts its
// threads 50 ms apart).
func (w *Workload) NewWorker(ctx context.Context, id int, rec *bench.Recorder) (bench.Worker, error) {
	if w.stagger > 0 && id > 0 {
		select {
		case <-time.After(time.Duration(id) * w.stagger):
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	k := &worker{w: w, id: id, write: id < w.writers, rec: rec,
		rng: rand.New(rand.NewPCG(w.seed, uint64(id)*0x9e3779b97f4a7c15+1))}
	k.vg = valueGen{size: w.o.ValueSize, ascii: w.o.ASCIIValues, r: k.rng}
	if w.newRetry != nil {
		k.retry = w.newRetry()
	}
	n := 1
	if k.write {
		n = w.o.BatchSize
	}
	k.slots = make([]slot, n)
	k.keyNums = make([]int64, n)
	w.mu.Lock()
	w.workers = append(w.workers, k)
	w.mu.Unlock()
	return k, nil
}

// Snapshot sums the workers' own counters: successful operations and their
// latencies for the metrics line, and the error and verification counts.
func (w *Workload) Snapshot() (s Counts) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, k := range w.workers {
		c := &k.cnt
		s.ReadOps += c.readOps.Load()
		s.ReadNanos += c.readNanos.Load()
		s.WriteOps += c.writeOps.Load()
		s.WriteNanos += c.writeNanos.Load()
		s.Batches += c.batches.Load()
		s.VerifyFailed += c.verifyFailed.Load()
		s.RowCount += c.rowCount.Load()
		s.Exceptions += c.exceptions.Load()
		if c.failedThread.Load() {
			s.FailedThreads++
		}
	}
	return s
}

// Counts are the phase's counters.
type Counts struct {
	ReadOps, ReadNanos, WriteOps, WriteNanos int64
	Batches, VerifyFailed, RowCount          int64
	Exceptions                               int64
	FailedThreads                            int64
}

// workerCounters are written by their worker only (atomics, so the metrics
// line can read them), each on its own cache lines.
type workerCounters struct {
	_                                        [64]byte
	readOps, readNanos, writeOps, writeNanos atomic.Int64
	batches, verifyFailed, rowCount          atomic.Int64
	exceptions                               atomic.Int64
	failedThread                             atomic.Bool
	_                                        [64]byte
}

type slot struct {
	key, val []byte
	k        keyArg
	v        bytesArg
}

type worker struct {
	w       *Workload
	id      int
	write   bool
	rec     *bench.Recorder
	rng     *rand.Rand
	vg      valueGen
	slots   []slot
	keyNums []int64
	kbuf    []byte // key read back
	vbuf    []byte // value read back
	scratch []byte
	consec  int // consecutive exceptions
	cnt     workerCounters
	retry   *ycql.RetryPolicy // nil: the session's
	// reuse is the partition-aware pick's state for the worker's
	// statements: each returns one page at most and runs in the call.
	reuse ycql.PickReuse
}

// query is one of the worker's statements, with its retry policy.
func (k *worker) query(ctx context.Context, stmt string, cl gocql.Consistency, args ...interface{}) *gocql.Query {
	q := k.w.s.Query(stmt, args...).Consistency(cl).WithContext(k.reuse.Arm(ctx))
	if k.retry != nil {
		q.RetryPolicy(k.retry)
	}
	return q
}

// keyArg and bytesArg bind a slot's bytes without a copy or an allocation.
type keyArg struct{ b []byte }

// MarshalCQL returns the key's bytes as they are.
func (a *keyArg) MarshalCQL(gocql.TypeInfo) ([]byte, error) { return a.b, nil }

type bytesArg struct{ b []byte }

// MarshalCQL returns the value's bytes as they are.
func (a *bytesArg) MarshalCQL(gocql.TypeInfo) ([]byte, error) { return a.b, nil }

// Do performs one read or one write (a batch, for CassandraBatchKeyValue),
// or stops the thread once its limit is reached.
func (k *worker) Do(ctx context.Context) error {
	w := k.w
	if k.write {
		if w.numWrites >= 0 && w.written.Load() >= w.numWrites {
			return bench.ErrStopWorker
		}
		opErr, fatal := k.doWrite(ctx)
		if fatal != nil {
			return fatal
		}
		return k.after(ctx, opErr)
	}
	if w.numReads >= 0 && w.read.Load() >= w.numReads {
		return bench.ErrStopWorker
	}
	return k.after(ctx, k.doRead(ctx))
}

// after applies the reference's error path (IOPSThread): an exception is
// logged (every tenth in a row, or all with --print_all_exceptions), the
// thread sleeps a second and goes on, and ends after more than 500 in a row.
func (k *worker) after(ctx context.Context, err error) error {
	if err == nil {
		k.consec = 0
		return nil
	}
	if ctx.Err() != nil {
		return nil // cut off at the end of the run: not an exception
	}
	k.cnt.exceptions.Add(1)
	if k.consec%10 == 0 || k.w.o.PrintAllExceptions {
		k.w.log.Warn("Caught Exception", "thread", k.id, "err", err, "kind", ycql.Classify(err).String())
	}
	k.consec++
	if k.consec > MaxConsecutiveErrors {
		k.w.log.Error(fmt.Sprintf("Had more than %d consecutive exceptions. Exiting.", k.consec-1), "thread", k.id, "err", err)
		k.cnt.failedThread.Store(true)
		return bench.ErrStopWorker
	}
	select {
	case <-time.After(time.Second):
	case <-ctx.Done():
	}
	return nil
}

func statusOf(err error) bench.Status {
	switch ycql.Classify(err) {
	case ycql.KindOK:
		return StOK
	case ycql.KindTimeout:
		return StTimeout
	case ycql.KindUnavailable, ycql.KindConnection:
		return StUnavailable
	}
	return StError
}

// doWrite writes one key, or a LOGGED batch of batch_size keys (each with
// its own key and value); latency spans key choice, value building and the
// call, as the reference times doWrite. It returns the statement's error
// and, apart, an error that must stop the run.
func (k *worker) doWrite(ctx context.Context) (opErr, fatal error) {
	w := k.w
	start := k.rec.Now()
	n := len(k.slots)
	for i := range k.slots {
		sl := &k.slots[i]
		num := w.keys.NextWrite(k.rng)
		k.keyNums[i] = num
		sl.key = appendKey(sl.key, w.o.UUID, num)
		sl.val = k.vg.build(sl.val, num)
		sl.k.b, sl.v.b = sl.key, sl.val
	}
	var err error
	if w.o.Workload == WorkloadBatchKV {
		b := w.s.NewBatch(gocql.LoggedBatch).WithContext(k.reuse.Arm(ctx))
		b.SetConsistency(w.writeCL)
		if k.retry != nil {
			b.RetryPolicy(k.retry)
		}
		for i := range k.slots {
			b.Query(w.insert, &k.slots[i].k, &k.slots[i].v)
		}
		err = w.s.ExecuteBatch(b)
	} else {
		err = k.query(ctx, w.insert, w.writeCL, &k.slots[0].k, &k.slots[0].v).Exec()
	}
	for _, num := range k.keyNums {
		var kerr error
		if err == nil {
			kerr = w.keys.Written(num)
		} else {
			kerr = w.keys.WriteFailed(num)
		}
		if kerr != nil {
			return nil, kerr
		}
	}
	st := statusOf(err)
	end := k.rec.Now()
	k.rec.ObserveN(OpWrite, st, start, n)
	if err != nil {
		return err, nil
	}
	k.cnt.writeOps.Add(int64(n))
	k.cnt.writeNanos.Add((end - start) * int64(n))
	k.cnt.batches.Add(1)
	if w.numWrites >= 0 {
		w.written.Add(int64(n))
	}
	return nil, nil
}

// doRead reads one key known to be written and verifies its value; a key
// is only chosen below the written watermark, and none before the first
// write lands (the thread then tries again at once, as the reference's
// does).
func (k *worker) doRead(ctx context.Context) error {
	w := k.w
	start := k.rec.Now()
	num, ok := w.keys.NextRead(k.rng)
	if !ok {
		runtime.Gosched()
		return nil
	}
	sl := &k.slots[0]
	sl.key = appendKey(sl.key, w.o.UUID, num)
	sl.k.b = sl.key
	iter := k.query(ctx, w.sel, w.readCL, &sl.k).Iter()
	rows := 0
	for iter.Scan(&k.kbuf, &k.vbuf) {
		rows++
	}
	err := iter.Close()
	st := StOK
	switch {
	case err != nil:
		st = statusOf(err)
	case rows != 1:
		if w.o.TableTTL <= 0 {
			st = StRowCount
			if n := k.cnt.rowCount.Add(1); n <= 10 || n%10000 == 0 {
				w.log.Error("Read key: "+string(sl.key)+" expected 1 row in result, got "+strconv.Itoa(rows), "thread", k.id, "in_thread", n)
			}
		}
	default:
		var good bool
		good, k.scratch = Verify(k.vbuf, num, w.o.ValueSize, k.scratch)
		if !good {
			st = StVerifyFailed
			if n := k.cnt.verifyFailed.Add(1); n <= 10 || n%10000 == 0 {
				w.log.Error("Value mismatch", "key", string(sl.key), "thread", k.id, "failures_in_thread", n)
			}
		}
	}
	end := k.rec.Now()
	k.rec.Observe(OpRead, st, start)
	if err != nil {
		return err
	}
	k.cnt.readOps.Add(1)
	k.cnt.readNanos.Add(end - start)
	if w.numReads >= 0 {
		w.read.Add(1)
	}
	return nil
}
