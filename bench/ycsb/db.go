package ycsb

import (
	"context"

	"github.com/ybbench/ybbench/bench"
)

// Status is a YCSB operation result (site.ycsb.Status), indexed as in the
// YCSB catalog.
type Status = bench.Status

// The YCSB statuses, in catalog order.
const (
	OK Status = iota
	Error
	NotFound
	NotImplemented
	UnexpectedState
	BadRequest
	Forbidden
	ServiceUnavailable
	BatchedOK
)

var statusDefs = []bench.StatusDef{
	{Name: "OK", OK: true}, {Name: "ERROR"}, {Name: "NOT_FOUND"}, {Name: "NOT_IMPLEMENTED"},
	{Name: "UNEXPECTED_STATE"}, {Name: "BAD_REQUEST"}, {Name: "FORBIDDEN"},
	{Name: "SERVICE_UNAVAILABLE"}, {Name: "BATCHED_OK", OK: true},
}

// DB is one worker's connection to the database: YCSB's DB class, of which
// every client thread has its own instance.
//
// Methods return a Status, never an error: a failed call is a result the
// workload counts (ERROR, NOT_FOUND, …). A binding logs the cause.
type DB interface {
	// Read reads one record. fields nil means all fields. result, when not
	// nil, receives the values read; bindings fill it only when asked.
	Read(ctx context.Context, table, key string, fields []string, result map[string][]byte) Status
	// Scan reads up to count records from startKey in the binding's order,
	// and returns how many rows it saw.
	Scan(ctx context.Context, table, startKey string, count int, fields []string) (int, Status)
	// Update writes the given fields of one record.
	Update(ctx context.Context, table, key string, values []Field) Status
	// Insert writes a new record.
	Insert(ctx context.Context, table, key string, values []Field) Status
	// Delete removes one record.
	Delete(ctx context.Context, table, key string) Status
	// Cleanup flushes pending work (batches) and closes connections.
	Cleanup(ctx context.Context) error
}

// KeyBorrower is implemented by a DB that keeps no key string past the call
// it was passed to (nor anything made from it without a copy). Such a DB
// is given views of the worker's key buffer, which the next key
// overwrites, instead of keys copied into memory of their own: a DB that
// queues keys (a batch) must not implement it.
type KeyBorrower interface {
	BorrowsKeys() bool
}

// Binding creates the per-worker DB objects of one database interface.
type Binding interface {
	// NewDB connects worker (0-based, of workers) to the database.
	NewDB(ctx context.Context, worker, workers int) (DB, error)
}

// Preparer is implemented by bindings that do work once before the workers
// start (check the table exists, create it when asked).
type Preparer interface {
	Prepare(ctx context.Context, load bool) error
}

// ThreadBanner is implemented by bindings whose YCSB counterpart prints
// lines on stdout as each client thread's DB is initialised (the JDBC
// binding's "Adding shard node URL: …" and "Using shards: …"): the seeds'
// .dat files hold them, so the agent prints them too, once per thread.
type ThreadBanner interface {
	ThreadBanner() []string
}

// Describer is implemented by bindings that report settings that shape the
// numbers (driver version, server version, DDL), for the records.
type Describer interface {
	Settings() map[string]string
}

// DDLer is implemented by bindings that can create the table: DDL is the
// statement(s) they ran, "" when they created nothing. The summary carries
// it, so that the orchestrator records what ran rather than rebuilding it.
type DDLer interface {
	DDL() string
}

// Closer is implemented by bindings that hold shared resources (a shared
// session) to release after the run.
type Closer interface {
	Close() error
}
