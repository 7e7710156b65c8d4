//go:build integration

package kv

import (
	"strconv"
	"strings"
	"testing"
	"time"
)

// --ybload_start_at holds back the measured workload until the instant:
// no key is written before it (the cells' write times), and the records
// begin no earlier.
func TestIntegrationStartAt(t *testing.T) {
	nodes, s := node(t)
	ks := ownKeyspace(t, s)
	// Far enough ahead that the agent, connecting to Cassandra on a busy
	// machine, reaches the wait before the instant (300 ms was not, once).
	at := time.Now().Add(3 * time.Second).Truncate(time.Millisecond)
	r := runKV(t, "--workload", "CassandraKeyValue", "--nodes", nodes, "--nouuid", "--value_size", "16",
		"--num_threads_read", "0", "--num_threads_write", "1", "--num_unique_keys", "50", "--num_writes", "50",
		"--ybload_keyspace", ks, "--ybload_start_at", strconv.FormatInt(at.UnixMilli(), 10))
	if r.code != 0 {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stderr, "Waiting for the start time") {
		t.Errorf("no line about the wait:\n%s", r.stderr)
	}
	it := s.Query("SELECT writetime(v) FROM " + ks + ".CassandraKeyValue").Iter()
	var us, n int64
	for it.Scan(&us) {
		n++
		if w := time.UnixMicro(us); w.Before(at) {
			t.Errorf("a key was written at %v, before the start time %v", w, at)
		}
	}
	if err := it.Close(); err != nil || n == 0 {
		t.Fatalf("%d keys written, %v", n, err)
	}
	if r.records == nil || r.records.Meta.Start.Before(at) || len(r.records.Ticks) == 0 || r.records.Ticks[0].Start.Before(at) {
		t.Errorf("records begin before %v: %+v", at, r.records)
	}
}
