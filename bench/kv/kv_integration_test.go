//go:build integration

package kv

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/ybbench/ybbench/internal/exitcode"
	"github.com/ybbench/ybbench/internal/testenv"
	"github.com/ybbench/ybbench/record"
)

// node returns the shared Cassandra's --nodes value and a session to check
// the data with.
func node(t *testing.T) (string, *gocql.Session) {
	t.Helper()
	c := testenv.CassandraFor(t)
	cl := gocql.NewCluster(c.Hosts...)
	cl.Port = c.Port
	cl.ProtoVersion = 4
	cl.Consistency = gocql.One
	cl.Timeout = 30 * time.Second
	cl.ConnectTimeout = 10 * time.Second
	s, err := cl.CreateSession()
	if err != nil {
		t.Fatalf("connect to the shared Cassandra: %v", err)
	}
	t.Cleanup(s.Close)
	var nodes []string
	for _, h := range c.Hosts {
		nodes = append(nodes, fmt.Sprintf("%s:%d", h, c.Port))
	}
	return strings.Join(nodes, ","), s
}

// ownKeyspace names a keyspace of the test's own, dropped at the end.
func ownKeyspace(t *testing.T, s *gocql.Session) string {
	t.Helper()
	ks := fmt.Sprintf("ybit_kv_%d", rand.IntN(1e9))
	t.Cleanup(func() { s.Query("DROP KEYSPACE IF EXISTS " + ks).Exec() })
	return ks
}

type result struct {
	code           int
	stdout, stderr string
	summary        *Summary
	records        *record.File
}

func runKV(t *testing.T, args ...string) *result {
	t.Helper()
	dir := t.TempDir()
	return readKV(t, dir, execKV(dir, args))
}

// execKV runs ybload kv in-process with its summary and records in dir;
// it may run on any goroutine (several agents at once).
func execKV(dir string, args []string) *result {
	sum, rec := filepath.Join(dir, "summary.json"), filepath.Join(dir, "records.jsonl")
	args = append(args, "--ybload_summary", sum, "--ybload_records", rec, "--ybload_stagger_ms", "0", "--ybload_seed", "42")
	var out, errb bytes.Buffer
	code := Main(context.Background(), args, &Env{Stdout: &out, Stderr: &errb, Getenv: func(string) string { return "" }, Version: "test"})
	return &result{code: code, stdout: out.String(), stderr: errb.String()}
}

// readKV reads the summary and records execKV's run left in dir.
func readKV(t *testing.T, dir string, r *result) *result {
	t.Helper()
	sum, rec := filepath.Join(dir, "summary.json"), filepath.Join(dir, "records.jsonl")
	if b, err := os.ReadFile(sum); err == nil {
		r.summary = &Summary{}
		if err := json.Unmarshal(b, r.summary); err != nil {
			t.Fatal(err)
		}
	}
	if f, err := os.Open(rec); err == nil {
		defer f.Close()
		if r.records, err = record.Read(rec, f); err != nil {
			t.Fatal(err)
		}
	}
	return r
}

func (r *result) op(name string) SummaryOp {
	for _, o := range r.summary.Measurements {
		if o.Name == name {
			return o
		}
	}
	return SummaryOp{}
}

// recordUnits adds up a measurement's units (keys) and statuses over the
// tick records.
func recordUnits(f *record.File, op string) (units int64, statuses map[string]int64) {
	statuses = map[string]int64{}
	for _, tk := range f.Ticks {
		if tk.Op != op || tk.Warmup {
			continue
		}
		if tk.Units != 0 {
			units += tk.Units
		} else {
			units += tk.Count
		}
		for k, v := range tk.Statuses {
			statuses[k] += v
		}
	}
	return units, statuses
}

var metricsLine = regexp.MustCompile(`^\d+ \[Thread-1\] INFO com\.yugabyte\.sample\.common\.metrics\.MetricsTracker  - Read: [0-9.]+ ops/sec \([0-9.]+ ms/op\), \d+ total ops  \|  Write: [0-9.]+ ops/sec \([0-9.]+ ms/op\), (\d+) total ops  \|  Uptime: \d+ ms \| maxWrittenKey: -?\d+ \| maxGeneratedKey: -?\d+ \| $`)

// count is SELECT COUNT(*) of the table, or, above a few thousand rows, a
// paged scan of its keys (a server-side count of 100,000 rows outlasts the
// read timeout on a busy 2-core machine).
func count(t *testing.T, s *gocql.Session, ks string) int64 {
	t.Helper()
	var n int64
	err := s.Query("SELECT COUNT(*) FROM " + ks + ".cassandrakeyvalue").Scan(&n)
	if err == nil {
		return n
	}
	t.Logf("COUNT(*): %v; counting the keys page by page", err)
	iter := s.Query("SELECT k FROM " + ks + ".cassandrakeyvalue").PageSize(2000).Iter()
	n = 0
	var k string
	for iter.Scan(&k) {
		n++
	}
	if err := iter.Close(); err != nil {
		t.Fatal(err)
	}
	return n
}

// lines splits stdout into lines, keeping each line's trailing space.
func lines(stdout string) []string { return strings.Split(strings.TrimRight(stdout, "\n"), "\n") }

// A write phase, then a read phase after one key was overwritten with a bad
// value through CQL: every read is verified, the bad key is caught, and the
// run goes on to its last read.
func TestIntegrationKVWriteThenReadCatchesABadValue(t *testing.T) {
	nodes, s := node(t)
	ks := ownKeyspace(t, s)
	const keys, writers = 200, 4
	w := runKV(t, "--workload", "CassandraKeyValue", "--nodes", nodes, "--nouuid", "--value_size", "64",
		"--num_threads_read", "0", "--num_threads_write", strconv.Itoa(writers), "--num_unique_keys", strconv.Itoa(keys),
		"--num_writes", strconv.Itoa(keys), "--ybload_keyspace", ks)
	if w.code != 0 {
		t.Fatalf("write phase: exit %d\n%s", w.code, w.stderr)
	}
	written := w.summary.Counters["keys_written"]
	if written < keys || written > keys+writers-1 {
		t.Errorf("%d keys written for --num_writes %d and %d writers", written, keys, writers)
	}
	if u, st := recordUnits(w.records, "Write"); u != written || st["OK"] != written {
		t.Errorf("records: %d write units, statuses %v; counter %d", u, st, written)
	}
	// Every key 0…keys-1 is there once with a value of its own that verifies.
	iter := s.Query("SELECT k, v FROM " + ks + ".cassandrakeyvalue").Iter()
	var k string
	var v []byte
	seen := map[int64]bool{}
	for iter.Scan(&k, &v) {
		n, err := strconv.ParseInt(strings.TrimPrefix(k, "key:"), 10, 64)
		if err != nil || !strings.HasPrefix(k, "key:") {
			t.Fatalf("key %q", k)
		}
		if ok, _ := Verify(v, n, 64, nil); !ok || len(v) != 64 || v[0] != 'B' {
			t.Errorf("key %s: value %x does not verify", k, v)
		}
		seen[n] = true
	}
	if err := iter.Close(); err != nil {
		t.Fatal(err)
	}
	for n := int64(0); n < keys; n++ {
		if !seen[n] {
			t.Errorf("key:%d missing", n)
		}
	}
	if int64(len(seen)) != count(t, s, ks) {
		t.Errorf("%d distinct keys, COUNT(*) %d", len(seen), count(t, s, ks))
	}

	// One key overwritten with a 64-byte value of the right marker and prefix
	// but a wrong checksum.
	bad := append([]byte("Bval:7"), make([]byte, 58)...)
	if err := s.Query("UPDATE "+ks+".cassandrakeyvalue SET v = ? WHERE k = 'key:7'", bad).Exec(); err != nil {
		t.Fatal(err)
	}
	const reads = 5000
	r := runKV(t, "--workload", "CassandraKeyValue", "--nodes", nodes, "--nouuid", "--value_size", "64", "--read_only",
		"--max_written_key", strconv.Itoa(keys-1), "--num_threads_read", "4", "--num_reads", strconv.Itoa(reads), "--ybload_keyspace", ks)
	if r.code != 0 {
		t.Fatalf("read phase: exit %d\n%s", r.code, r.stderr)
	}
	failures := r.summary.Counters["read_verify_failures"]
	read := r.op("Read")
	if failures == 0 || failures > read.Units/20 {
		t.Errorf("%d verification failures in %d reads: want the bad key caught, the others not", failures, read.Units)
	}
	if read.Units < reads || read.Statuses["VERIFY_FAILED"] != failures || read.Errors != 0 {
		t.Errorf("reads %+v: want all %d reads done, VERIFY_FAILED = %d", read, reads, failures)
	}
	if _, st := recordUnits(r.records, "Read"); st["VERIFY_FAILED"] != failures {
		t.Errorf("records count %d VERIFY_FAILED, counter %d", st["VERIFY_FAILED"], failures)
	}
	if !strings.Contains(r.stderr, "Value mismatch") || !strings.Contains(r.stderr, "key:7") {
		t.Errorf("the mismatch is not logged:\n%s", r.stderr)
	}
	out := lines(r.stdout)
	if len(out) == 0 || !metricsLine.MatchString(out[len(out)-1]) {
		t.Errorf("last stdout line is not the reference's metrics line:\n%s", r.stdout)
	}
	for k, want := range map[string]string{"ycql.server_flavor": "cassandra", "kv.read_consistency": "QUORUM", "ycql.connections_per_host": "4"} {
		if r.summary.Settings[k] != want {
			t.Errorf("setting %s = %q, want %q", k, r.summary.Settings[k], want)
		}
	}
}

// Batches on a fresh table with --nouuid: every key is new, so the table
// holds exactly the keys written, and the keys counted are the batches
// (counted apart) times the batch size.
func TestIntegrationKVBatchCountsKeysPerBatch(t *testing.T) {
	nodes, s := node(t)
	ks := ownKeyspace(t, s)
	const batch, writers, limit = 25, 4, 5000
	r := runKV(t, "--workload", "CassandraBatchKeyValue", "--nodes", nodes, "--nouuid", "--batch_size", strconv.Itoa(batch),
		"--value_size", "256", "--num_threads_read", "0", "--num_threads_write", strconv.Itoa(writers),
		"--num_unique_keys", "1000000000", "--num_writes", strconv.Itoa(limit), "--ybload_keyspace", ks)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	keysWritten, batches := r.summary.Counters["keys_written"], r.summary.Counters["write_batches"]
	if keysWritten != batches*batch {
		t.Errorf("%d keys written, %d batches × %d = %d", keysWritten, batches, batch, batches*batch)
	}
	// A writer checks the limit before each batch: at most one batch per
	// other writer beyond it.
	if keysWritten < limit || keysWritten > limit+(writers-1)*batch {
		t.Errorf("%d keys written for --num_writes %d", keysWritten, limit)
	}
	w := r.op("Write")
	if w.Units != keysWritten || w.Count != batches {
		t.Errorf("summary: %d units in %d measurements; want %d keys in %d batches", w.Units, w.Count, keysWritten, batches)
	}
	if u, _ := recordUnits(r.records, "Write"); u != keysWritten {
		t.Errorf("records: %d units, want %d", u, keysWritten)
	}
	if n := count(t, s, ks); n != keysWritten {
		t.Errorf("COUNT(*) = %d, keys written %d", n, keysWritten)
	}
	// The metrics line counts keys too.
	var total int64
	for _, l := range lines(r.stdout) {
		if m := metricsLine.FindStringSubmatch(l); m != nil {
			total, _ = strconv.ParseInt(m[1], 10, 64)
		}
	}
	if total != keysWritten {
		t.Errorf("metrics line total %d, keys written %d\n%s", total, keysWritten, r.stdout)
	}
}

// With no writers the tool first writes keys itself, unmeasured, then reads
// only among them.
func TestIntegrationKVPureReadSetup(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 100,000 keys")
	}
	nodes, s := node(t)
	ks := ownKeyspace(t, s)
	r := runKV(t, "--workload", "CassandraKeyValue", "--nodes", nodes, "--nouuid", "--num_threads_read", "4",
		"--num_threads_write", "0", "--num_reads", "2000", "--ybload_keyspace", ks)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	setup := r.summary.Counters["setup_keys"]
	if setup < PureReadSetupKeys || setup > PureReadSetupKeys+15 || r.op("Write").Count != 0 {
		t.Errorf("setup wrote %d keys (want %d, plus at most 15 in flight); measured writes %d", setup, PureReadSetupKeys, r.op("Write").Count)
	}
	if read := r.op("Read"); read.Units < 2000 || read.Statuses["OK"] != read.Units {
		t.Errorf("reads %+v", read)
	}
	if n := count(t, s, ks); n != setup {
		t.Errorf("COUNT(*) %d, setup keys %d", n, setup)
	}
}

// Bad flags are input errors (exit 2) and an unreachable cluster a
// database error (exit 5), each one clear line.
func TestIntegrationKVBadInputs(t *testing.T) {
	for _, c := range []struct {
		args string
		code int
		want string
	}{
		{"--workload CassandraKeyValue --nodes 127.0.0.1:9042 --value_size -5", exitcode.Config, "--value_size -5"},
		{"--workload CassandraKeyValue --nodes 127.0.0.1", exitcode.Config, "want host:port"},
		{"--workload CassandraKeyValue --nodes 127.0.0.1:1 --cql_connect_timeout_ms 500", exitcode.Workload, "connect to 127.0.0.1"},
	} {
		r := runKV(t, strings.Fields(c.args)...)
		if r.code != c.code || !strings.Contains(r.stderr, c.want) || strings.Contains(r.stderr, "goroutine ") {
			t.Errorf("%s: exit %d\n%s\nwant exit %d and %q", c.args, r.code, r.stderr, c.code, c.want)
		}
	}
}
