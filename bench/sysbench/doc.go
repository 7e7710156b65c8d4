// Package sysbench is ybload's sysbench mode: the eight oltp_* workloads of
// sysbench's bundled Lua scripts (point_select, read_only, read_write,
// write_only, insert, update_index, update_non_index, delete) over the
// PostgreSQL wire protocol (YSQL), with sysbench's command line, statements,
// accounting and reports (spec: ../shared/specs/sysbench.md).
//
// Two behaviours are offered. The default (--compat=yb) is Yugabyte's fork
// of sysbench, which the YugabyteDB benchmark documents use: the runtime of
// sysbench's master branch (uniform ids by default, --warmup-time, the
// Throughput block), the fork's DDL options (range sharding, split points,
// sequence cache, index before load) and int4 parameters. --compat=1.0.20
// behaves as stock sysbench 1.0.20 (Debian's package): the special
// distribution by default, int8 parameters, the General statistics block,
// index after load, no warm-up.
//
// A run is one bench.Run: each worker holds one connection (opened and
// prepared before the clock starts, as sysbench's thread_init), one event is
// one outer operation recorded once in the worker's bench.Recorder (the HDR
// records), and beside it the worker keeps sysbench's own counters and
// 1024-bucket latency histogram, read by the report without a lock.
package sysbench
