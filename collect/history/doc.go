// Package history keeps every run's figures in a store that outlives the
// machine that ran it, as series of comparable runs ordered by the build
// they measured, and finds where a series changed level (change points,
// package changepoint) rather than judging one run against one noisy
// baseline.
//
// What a run adds is an Entry: its build and, per series, each figure's
// value in each repetition. Entries are taken from result.json alone
// (FromResult), so a store can be filled from old run directories
// (ybbench history import) as well as by run itself. A store holds
// entries whole or not at all, once per run id: importing twice adds
// nothing, and a half-written entry is never read.
//
// The stores: an embedded SQLite file under the user's data directory (the
// default: no server, no cgo), PostgreSQL or YugabyteDB's YSQL for CI
// runners that vanish (postgres://…), an object store (s3://bucket/prefix,
// one JSON document per run, written once), and a directory of run
// directories (the --history DIR of gate files before there was a store).
package history
