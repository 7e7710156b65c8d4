//go:build integration

package kv

import (
	"math"
	"testing"
)

// --ybload_target_ops_per_sec paces the writers on an open model: a rate
// the server takes is held (the rows in the table, counted by Cassandra,
// are the rate times the run time), with response times beside the service
// times and no late start; a rate far above what it takes falls behind,
// and the operations that started late are counted. A closed-loop run of
// the same flags is the control: no schedule, no response times.
func TestIntegrationKVTargetRate(t *testing.T) {
	nodes, s := node(t)
	args := func(ks string, extra ...string) []string {
		return append([]string{"--workload", "CassandraKeyValue", "--nodes", nodes, "--nouuid", "--value_size", "16",
			"--num_threads_read", "0", "--num_threads_write", "4", "--num_unique_keys", "100000000", "--num_writes", "-1",
			"--ybload_keyspace", ks}, extra...)
	}

	ks := ownKeyspace(t, s)
	paced := runKV(t, args(ks, "--run_time", "4", "--ybload_target_ops_per_sec", "200", "--ybload_late_after_ms", "50")...)
	if paced.code != 0 || paced.records == nil {
		t.Fatalf("paced: exit %d\n%s", paced.code, paced.stderr)
	}
	rows := count(t, s, ks)
	if want := 200.0 * 4; math.Abs(float64(rows)-want)/want > 0.05 {
		t.Errorf("paced at 200 ops/s for 4 s: %d rows in the table, want %.0f ± 5%%", rows, want)
	}
	var late, withResponse, ticks int64
	for _, tk := range paced.records.Ticks {
		late += tk.Late
		ticks++
		if tk.Response != "" {
			withResponse++
		}
	}
	if m := paced.records.Meta; m.TargetOpsPerSec != 200 || m.Schedule == "" || withResponse == 0 || late > rows/1000 {
		t.Errorf("paced records: target %v, schedule %q, %d of %d ticks with response times, %d late", m.TargetOpsPerSec, m.Schedule, withResponse, ticks, late)
	}

	over := runKV(t, args(ownKeyspace(t, s), "--run_time", "3", "--ybload_target_ops_per_sec", "1000000")...)
	if over.code != 0 || over.records == nil {
		t.Fatalf("overloaded: exit %d\n%s", over.code, over.stderr)
	}
	var ops, overLate int64
	for _, tk := range over.records.Ticks {
		ops += tk.Count + tk.Errors
		overLate += tk.Late
	}
	if rate := float64(ops) / 3; rate > 0.5*1e6 || overLate < ops/2 {
		t.Errorf("offered 1,000,000 ops/s: %.0f ops/s done, %d of %d late", rate, overLate, ops)
	}

	closed := runKV(t, args(ownKeyspace(t, s), "--run_time", "1")...)
	if closed.code != 0 || closed.records == nil || closed.records.Meta.Schedule != "" || closed.records.Meta.TargetOpsPerSec != 0 {
		t.Fatalf("closed loop: exit %d, records %+v\n%s", closed.code, closed.records, closed.stderr)
	}
}
