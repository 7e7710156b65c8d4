//go:build e2e

package kv

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ybbench/ybbench/internal/testenv"
	"github.com/ybbench/ybbench/record"
)

func readTicks(t *testing.T, path string) *record.File {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	rf, err := record.Read(path, f)
	if err != nil {
		return nil // the agent is writing: read again later
	}
	return rf
}

// waitFor polls the records until cond holds; it fails the test if the
// agent exits first or nothing is seen within limit (a generous bound: the
// machine is shared).
func waitFor(t *testing.T, path string, limit time.Duration, what string, exited <-chan int, stderr *syncBuffer, cond func(*record.File) bool) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) {
		if f := readTicks(t, path); f != nil && cond(f) {
			return
		}
		select {
		case c := <-exited:
			t.Fatalf("%s: the agent exited (%d) first:\n%s", what, c, stderr.String())
		case <-time.After(500 * time.Millisecond):
		}
	}
	t.Fatalf("%s: not seen within %v\n%s", what, limit, stderr.String())
}

// okSince counts successful measurements in ticks that started at or after since.
func okSince(f *record.File, since time.Time) (n int64) {
	for _, tk := range f.Ticks {
		if !tk.Start.Before(since) {
			n += tk.Count
		}
	}
	return n
}

func errorsIn(f *record.File) (n int64) {
	for _, tk := range f.Ticks {
		n += tk.Errors
	}
	return n
}

// The node stops in the middle of a run: the agent keeps running, counts
// the failed operations by kind, reconnects when the node is back, and its
// records show the three periods.
func TestFaultKVNodeStoppedMidRun(t *testing.T) {
	node := testenv.StartOwnCassandra(t)
	dir := t.TempDir()
	recs, sum := filepath.Join(dir, "records.jsonl"), filepath.Join(dir, "summary.json")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out, errb syncBuffer
	code := make(chan int, 1)
	go func() {
		code <- Main(ctx, []string{"--workload", "CassandraKeyValue", "--nodes", node.Addr(), "--nouuid", "--value_size", "64",
			"--num_threads_write", "4", "--num_threads_read", "4", "--num_unique_keys", "1000000", "--num_writes", "-1",
			"--num_reads", "-1", "--run_time", "300", "--cql_read_timeout_ms", "2000", "--cql_connect_timeout_ms", "1000",
			"--ybload_stagger_ms", "0", "--ybload_records", recs, "--ybload_summary", sum}, &Env{Stdout: &out, Stderr: &errb, Version: "test"})
	}()
	waitFor(t, recs, 3*time.Minute, "successful writes and reads before the stop", code, &errb, func(f *record.File) bool {
		var w, r int64
		for _, tk := range f.Ticks {
			if tk.Op == "Write" {
				w += tk.Count
			} else {
				r += tk.Count
			}
		}
		return w > 100 && r > 100
	})
	node.Stop(t)
	stopped := time.Now()
	// Down for a while: until three intervals' records count failures,
	// so that the down period is a period of its own in the records.
	waitFor(t, recs, 2*time.Minute, "three intervals of failed operations while the node is down", code, &errb, func(f *record.File) bool {
		n := 0
		for _, tk := range f.Ticks {
			if tk.Errors > 0 {
				n++
			}
		}
		return n >= 3
	})
	node.Start(t)
	back := time.Now()
	waitFor(t, recs, 3*time.Minute, "successful operations after the node is back", code, &errb, func(f *record.File) bool {
		return okSince(f, back.Add(2*time.Second)) > 100
	})
	cancel() // as SIGINT: the run stops and writes what it measured
	select {
	case c := <-code:
		if c != 0 {
			t.Fatalf("exit %d\n%s", c, errb.String())
		}
	case <-time.After(2 * time.Minute):
		t.Fatal("the agent did not stop")
	}
	f := readTicks(t, recs)
	if f == nil || f.End == nil {
		t.Fatal("no End record")
	}
	if f.End.Stop != "interrupted" {
		t.Errorf("stop %q", f.End.Stop)
	}
	var before, after, failed int64
	kinds := map[string]int64{}
	for _, tk := range f.Ticks {
		switch {
		case tk.End.Before(stopped):
			before += tk.Count
		case tk.Start.After(back):
			after += tk.Count
		}
		failed += tk.Errors
		for k, v := range tk.Statuses {
			if k != "OK" {
				kinds[k] += v
			}
		}
	}
	if before == 0 || failed == 0 || after == 0 {
		t.Errorf("records: %d ok before the stop, %d failed, %d ok after the restart", before, failed, after)
	}
	if kinds["TIMEOUT"]+kinds["UNAVAILABLE"]+kinds["ERROR"] != failed {
		t.Errorf("failed operations %d, by kind %v", failed, kinds)
	}
	c := f.End.Counters
	if c["exceptions"] == 0 || c["ycql_host_down_events"] == 0 || c["ycql_host_up_events"] < 2 || c["ycql_connect_failures"] == 0 {
		t.Errorf("counters %v: want exceptions, a host down event, an up event after it and failed connection attempts", c)
	}
	var s Summary
	b, _ := os.ReadFile(sum)
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	var errs int64
	for _, m := range s.Measurements {
		errs += m.Errors
	}
	// Three counts of one thing, kept apart: the summary's per-operation
	// errors, the ticks' failures and the workload's exception counter.
	if errs != failed || c["exceptions"] != failed {
		t.Errorf("summary: %d errors; records: %d failed operations; exceptions counter %d", errs, failed, c["exceptions"])
	}
	t.Logf("ok before %d, failed %d (%v), ok after %d; counters %v", before, failed, kinds, after, c)
}

// Bad inputs end the real binary with a clear message and the promised
// exit code: 2 for input, 5 for the database.
func TestFaultBadInputsExitCodes(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "ybload")
	build := exec.Command("go", "build", "-o", bin, "./cmd/ybload")
	build.Dir = testenv.RepoRoot()
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build ybload: %v\n%s", err, out)
	}
	props := filepath.Join(t.TempDir(), "db.properties")
	os.WriteFile(props, []byte("hosts=127.0.0.1\nport=1\ncassandra.connecttimeoutmillis=500\n"), 0o600)
	for _, c := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"unknown consistency level", []string{"run", "ycql", "-P", props, "-P", "workloads/workloada", "-p", "cassandra.readconsistencylevel=SOMETIMES"}, 2, `unknown consistency level "SOMETIMES"`},
		{"negative value size", []string{"kv", "--workload", "CassandraKeyValue", "--nodes", "127.0.0.1:9042", "--value_size", "-1"}, 2, "--value_size -1"},
		{"malformed --nodes", []string{"kv", "--workload", "CassandraKeyValue", "--nodes", "127.0.0.1;9042"}, 2, "--nodes entry"},
		{"unreachable hosts (YCSB)", []string{"run", "ycql", "-P", props, "-P", "workloads/workloada"}, 5, "connect to 127.0.0.1"},
		{"unreachable hosts (KV)", []string{"kv", "--workload", "CassandraKeyValue", "--nodes", "127.0.0.1:1", "--cql_connect_timeout_ms", "500"}, 5, "connect to 127.0.0.1"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var stderr bytes.Buffer
			cmd := exec.Command(bin, c.args...)
			cmd.Stderr = &stderr
			err := cmd.Run()
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != c.code {
				t.Fatalf("err %v, want exit %d\n%s", err, c.code, stderr.String())
			}
			msg := stderr.String()
			if !strings.Contains(msg, c.want) || strings.Contains(msg, "goroutine ") {
				t.Errorf("stderr:\n%s\nwant %q and no panic", msg, c.want)
			}
		})
	}
}

// syncBuffer is a bytes.Buffer safe for the agent's goroutines and the test.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
