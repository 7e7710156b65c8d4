package ycsb

import (
	"context"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"sync"
	"time"
	"unsafe"

	"github.com/ybbench/ybbench/bench"
)

// The YCSB catalog's measurement names, in catalog order.
const (
	OpRead bench.Op = iota
	OpUpdate
	OpInsert
	OpScan
	OpDelete
	OpReadModifyWrite
	OpVerify
	OpCleanup
)

// Catalog is the YCSB measurement catalog.
var Catalog = &bench.Catalog{
	Ops:      []string{"READ", "UPDATE", "INSERT", "SCAN", "DELETE", "READ-MODIFY-WRITE", "VERIFY", "CLEANUP"},
	Statuses: statusDefs,
	Cleanup:  int(OpCleanup),
}

// transaction kinds, in DiscreteGenerator order.
const (
	txRead = iota
	txUpdate
	txInsert
	txScan
	txRMW
)

// Core is YCSB's CoreWorkload for one phase (load or run): the generators
// shared by every worker, and the binding that gives each worker its DB.
type Core struct {
	cfg     *Config
	load    bool
	binding Binding
	log     *slog.Logger
	seed    uint64

	fieldNames  []string
	fieldOrder  []int // Java HashMap iteration order of the field names
	fieldLen    Generator
	keySeq      *Counter
	ops         Discrete
	opKind      []int
	insertSeq   *AckCounter
	keyChooser  Generator
	exponential bool
	fieldChoose Generator
	scanLen     Generator

	mu      sync.Mutex
	workers []*worker
}

// NewCore builds the workload's generators, in YCSB's init order. seed
// feeds the workers' random sources (recorded with the results; YCSB has
// none and is never reproducible).
func NewCore(cfg *Config, load bool, binding Binding, seed uint64, log *slog.Logger) (*Core, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	c := &Core{cfg: cfg, load: load, binding: binding, log: log, seed: seed}
	c.fieldNames = cfg.FieldNames()
	c.fieldOrder = javaMapOrder(c.fieldNames, false)
	switch cfg.FieldLengthDist {
	case "uniform":
		c.fieldLen = NewUniform(cfg.MinFieldLength, cfg.FieldLength)
	case "zipfian":
		c.fieldLen = NewZipfian(cfg.MinFieldLength, cfg.FieldLength, ZipfianConstant, 0)
	case "histogram":
		if cfg.FieldLengths == nil {
			return nil, fmt.Errorf("%w: fieldlengthdistribution=histogram: the file %s was not read", ErrBadConfig, cfg.FieldLengthHistogram)
		}
		c.fieldLen = cfg.FieldLengths
	default:
		c.fieldLen = Constant(cfg.FieldLength)
	}
	c.keySeq = NewCounter(cfg.InsertStart)
	for i, w := range []float64{cfg.ReadProportion, cfg.UpdateProportion, cfg.InsertProportion, cfg.ScanProportion, cfg.RMWProportion} {
		if w > 0 {
			c.ops.Add(w, [...]string{"READ", "UPDATE", "INSERT", "SCAN", "READMODIFYWRITE"}[i])
			c.opKind = append(c.opKind, i)
		}
	}
	c.insertSeq = NewAckCounter(cfg.RecordCount)
	lo, hi := cfg.InsertStart, cfg.InsertStart+cfg.InsertCount-1
	switch cfg.RequestDistribution {
	case "uniform":
		c.keyChooser = NewUniform(lo, hi)
	case "sequential":
		c.keyChooser = NewSequential(lo, hi)
	case "zipfian":
		// Leave room for the keys inserted during the run, so their
		// popularity does not shift (YCSB: "2 is fudge factor").
		// Java's (int) cast saturates a count past int's range.
		newKeys := int64(JavaIntOfDouble(float64(cfg.OperationCount) * cfg.InsertProportion * 2.0))
		c.keyChooser = NewScrambledZipfian(lo, hi+1+newKeys)
	case "latest":
		c.keyChooser = NewSkewedLatest(c.insertSeq)
	case "hotspot":
		h, warn := NewHotspot(lo, hi, cfg.HotspotDataFraction, cfg.HotspotOpnFraction)
		cfg.Warnings = append(cfg.Warnings, warn...)
		c.keyChooser = h
	case "exponential":
		c.keyChooser = NewExponential(cfg.ExponentialPercentile, float64(cfg.RecordCount)*cfg.ExponentialFrac)
		c.exponential = true
	}
	c.fieldChoose = NewUniform(0, cfg.FieldCount-1)
	if cfg.ScanLengthDist == "zipfian" {
		c.scanLen = NewZipfian(cfg.MinScanLength, cfg.MaxScanLength, ZipfianConstant, 0)
	} else {
		c.scanLen = NewUniform(cfg.MinScanLength, cfg.MaxScanLength)
	}
	return c, nil
}

// Name identifies the workload.
func (c *Core) Name() string {
	if c.load {
		return "ycsb-load"
	}
	return "ycsb-run"
}

// Catalog is the YCSB catalog.
func (c *Core) Catalog() *bench.Catalog { return Catalog }

// Counters sums the workers' own counters, kept apart from the histograms:
// inserts that succeeded or failed, rows scans returned, reads verified.
func (c *Core) Counters() map[string]int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := map[string]int64{}
	for _, w := range c.workers {
		out["insert_ok"] += w.cnt.insertOK
		out["insert_failed"] += w.cnt.insertFailed
		out["scan_rows"] += w.cnt.scanRows
		out["scans"] += w.cnt.scans
		out["reads_not_found"] += w.cnt.notFound
	}
	if bc, ok := c.binding.(interface{ Counters() map[string]int64 }); ok {
		for k, v := range bc.Counters() {
			out[k] = v
		}
	}
	return out
}

// NewWorker connects one worker through the binding (inside the timed
// window, as YCSB's client threads do).
func (c *Core) NewWorker(ctx context.Context, id int, rec *bench.Recorder) (bench.Worker, error) {
	db, err := c.binding.NewDB(ctx, id, 0)
	if err != nil {
		return nil, err
	}
	w := &worker{c: c, db: db, rec: rec, rng: rand.New(rand.NewPCG(c.seed, uint64(id)*0x9e3779b97f4a7c15+1))}
	if b, ok := db.(KeyBorrower); ok {
		w.borrowKeys = b.BorrowsKeys()
	}
	if c.cfg.DataIntegrity {
		w.cells = map[string][]byte{}
	}
	c.mu.Lock()
	c.workers = append(c.workers, w)
	c.mu.Unlock()
	return w, nil
}

type counters struct {
	insertOK, insertFailed, scanRows, scans, notFound int64
}

type worker struct {
	c    *Core
	db   DB
	rec  *bench.Recorder
	rng  *rand.Rand
	key  []byte
	keys keyArena
	// borrowKeys: the DB keeps no key past its call (KeyBorrower), so a
	// key is a view of key, not a copy in the arena.
	borrowKeys bool
	one        [1]string
	vals       []Field
	ordered    []Field
	cells      map[string][]byte
	cnt        counters
}

// Do performs one YCSB operation: an insert in the load phase
// (CoreWorkload.doInsert), a chosen transaction in the run phase.
func (w *worker) Do(ctx context.Context) error {
	if w.c.load {
		return w.doInsert(ctx)
	}
	switch w.c.opKind[w.c.ops.NextIndex(w.rng)] {
	case txRead:
		w.doRead(ctx)
	case txUpdate:
		w.doUpdate(ctx)
	case txInsert:
		return w.doTransactionInsert(ctx)
	case txScan:
		w.doScan(ctx)
	default:
		w.doReadModifyWrite(ctx)
	}
	return nil
}

// Cleanup closes the worker's DB (timed by the engine as CLEANUP).
func (w *worker) Cleanup(ctx context.Context) error { return w.db.Cleanup(ctx) }

func (w *worker) keyName(keynum int64) string {
	cfg := w.c.cfg
	if cfg.AgentCount > 1 && keynum >= cfg.RecordCount {
		// Run-phase inserts of several agents interleave so that they never
		// collide: this agent's j-th new key is recordcount + j·count + index.
		keynum = cfg.RecordCount + (keynum-cfg.RecordCount)*cfg.AgentCount + cfg.AgentIndex
	}
	w.key = KeyName(w.key, cfg.KeyPrefix, keynum, int(cfg.ZeroPadding), cfg.OrderedInserts)
	if w.borrowKeys {
		return unsafe.String(unsafe.SliceData(w.key), len(w.key))
	}
	return w.keys.str(w.key)
}

func (w *worker) value(key, field string) Value {
	n := int(w.c.fieldLen.Next(w.rng))
	if w.c.cfg.DataIntegrity {
		return FixedValue(deterministicValue(key, field, n))
	}
	return RandomValue(n, w.rng)
}

// allValues builds every field (buildValues), drawing lengths in field
// order and returning them in Java HashMap iteration order, which is the
// column order YCSB's bindings write (field1, field0, field7, … for ten).
func (w *worker) allValues(key string) []Field {
	w.vals = w.vals[:0]
	for _, name := range w.c.fieldNames {
		w.vals = append(w.vals, Field{Name: name, Value: w.value(key, name)})
	}
	w.ordered = w.ordered[:0]
	for _, i := range w.c.fieldOrder {
		w.ordered = append(w.ordered, w.vals[i])
	}
	return w.ordered
}

// oneValue builds one random field (buildSingleValue).
func (w *worker) oneValue(key string) []Field {
	name := w.c.fieldNames[int32(w.c.fieldChoose.Next(w.rng))]
	w.vals = append(w.vals[:0], Field{Name: name, Value: w.value(key, name)})
	return w.vals
}

func (w *worker) updateValues(key string) []Field {
	if w.c.cfg.WriteAllFields {
		return w.allValues(key)
	}
	return w.oneValue(key)
}

func (w *worker) oneField() []string {
	w.one[0] = w.c.fieldNames[int32(w.c.fieldChoose.Next(w.rng))]
	return w.one[:]
}

// nextKeynum chooses a key among those inserted and acknowledged.
func (w *worker) nextKeynum() int64 {
	c := w.c
	if c.exponential {
		for {
			k := c.insertSeq.Last() - int64(int32(c.keyChooser.Next(w.rng)))
			if k >= 0 {
				return k
			}
		}
	}
	for {
		k := int64(int32(c.keyChooser.Next(w.rng)))
		if k <= c.insertSeq.Last() {
			return k
		}
	}
}

func (w *worker) measure(op bench.Op, st Status, start int64) { w.rec.Observe(op, st, start) }

func (w *worker) doInsert(ctx context.Context) error {
	cfg := w.c.cfg
	keynum := int64(int32(w.c.keySeq.Next(w.rng)))
	key := w.keyName(keynum)
	vals := w.allValues(key)
	var st Status
	for retries := int64(0); ; {
		start := w.rec.Now()
		st = w.db.Insert(ctx, cfg.Table, key, vals)
		w.measure(OpInsert, st, start)
		if isOK(st) {
			break
		}
		retries++
		if retries > cfg.InsertRetryLimit {
			if cfg.InsertRetryLimit > 0 {
				w.c.log.Error(fmt.Sprintf("Error inserting, not retrying any more. number of attempts: %dInsertion Retry Limit: %d", retries, cfg.InsertRetryLimit))
			}
			break
		}
		w.c.log.Warn(fmt.Sprintf("Retrying insertion, retry count: %d", retries))
		sleep := time.Duration(float64(time.Second) * float64(cfg.InsertRetryInterval) * (0.8 + 0.4*w.rng.Float64()))
		select {
		case <-time.After(sleep.Truncate(time.Millisecond)):
		case <-ctx.Done():
			return bench.ErrStopWorker
		}
	}
	if isOK(st) {
		w.cnt.insertOK++
		return nil
	}
	w.cnt.insertFailed++
	// A failed load insert stops this thread, as YCSB's doInsert returning false does.
	return bench.ErrStopWorker
}

func isOK(st Status) bool { return st == OK || st == BatchedOK }

func (w *worker) readFields() []string {
	cfg := w.c.cfg
	switch {
	case !cfg.ReadAllFields:
		return w.oneField()
	case cfg.DataIntegrity || cfg.ReadAllFieldsByName:
		return w.c.fieldNames
	}
	return nil
}

func (w *worker) doRead(ctx context.Context) {
	key := w.keyName(w.nextKeynum())
	fields := w.readFields()
	if w.cells != nil {
		clear(w.cells)
	}
	start := w.rec.Now()
	st := w.db.Read(ctx, w.c.cfg.Table, key, fields, w.cells)
	w.measure(OpRead, st, start)
	if st == NotFound {
		w.cnt.notFound++
	}
	if w.c.cfg.DataIntegrity {
		w.verify(key)
	}
}

// verify is CoreWorkload.verifyRow, measured as VERIFY.
func (w *worker) verify(key string) {
	start := w.rec.Now()
	st := OK
	if len(w.cells) == 0 {
		st = Error
	} else {
		for name, v := range w.cells {
			n := int(w.c.fieldLen.Next(w.rng))
			if string(v) != deterministicValue(key, name, n) {
				st = UnexpectedState
				break
			}
		}
	}
	w.measure(OpVerify, st, start)
}

func (w *worker) doUpdate(ctx context.Context) {
	key := w.keyName(w.nextKeynum())
	vals := w.updateValues(key)
	start := w.rec.Now()
	st := w.db.Update(ctx, w.c.cfg.Table, key, vals)
	w.measure(OpUpdate, st, start)
}

func (w *worker) doTransactionInsert(ctx context.Context) error {
	keynum := w.c.insertSeq.Next(w.rng)
	key := w.keyName(keynum)
	vals := w.allValues(key)
	start := w.rec.Now()
	st := w.db.Insert(ctx, w.c.cfg.Table, key, vals)
	w.measure(OpInsert, st, start)
	if isOK(st) {
		w.cnt.insertOK++
	} else {
		w.cnt.insertFailed++
	}
	// Acknowledged whatever the result, as YCSB's finally block does.
	if err := w.c.insertSeq.Acknowledge(keynum); err != nil {
		return fmt.Errorf("insert key %d: %w", keynum, err)
	}
	return nil
}

func (w *worker) doScan(ctx context.Context) {
	key := w.keyName(w.nextKeynum())
	n := int(int32(w.c.scanLen.Next(w.rng)))
	var fields []string
	if !w.c.cfg.ReadAllFields {
		fields = w.oneField()
	}
	start := w.rec.Now()
	rows, st := w.db.Scan(ctx, w.c.cfg.Table, key, n, fields)
	w.measure(OpScan, st, start)
	w.cnt.scans++
	w.cnt.scanRows += int64(rows)
}

func (w *worker) doReadModifyWrite(ctx context.Context) {
	cfg := w.c.cfg
	key := w.keyName(w.nextKeynum())
	var fields []string
	if !cfg.ReadAllFields {
		fields = w.oneField()
	}
	// The values to write are built before the timer starts, as YCSB does.
	vals := w.updateValues(key)
	if w.cells != nil {
		clear(w.cells)
	}
	start := w.rec.Now()
	rst := w.db.Read(ctx, cfg.Table, key, fields, w.cells)
	w.measure(OpRead, rst, start)
	ustart := w.rec.Now()
	ust := w.db.Update(ctx, cfg.Table, key, vals)
	w.measure(OpUpdate, ust, ustart)
	end := w.rec.Now()
	if cfg.DataIntegrity {
		w.verify(key)
	}
	// READ-MODIFY-WRITE is a latency only; YCSB reports no status for it.
	w.rec.ObserveSpan(OpReadModifyWrite, OK, start, end)
}
