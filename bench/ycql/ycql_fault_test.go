//go:build e2e

package ycql

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/ybbench/ybbench/bench/ycsb"
	"github.com/ybbench/ybbench/internal/testenv"
	"github.com/ybbench/ybbench/record"
)

func ticks(path string) *record.File {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	rf, err := record.Read(path, f)
	if err != nil {
		return nil
	}
	return rf
}

// waitTicks polls the records until cond holds; it fails the test if the
// agent exits first or nothing is seen within limit (a generous bound: the
// machine is shared).
func waitTicks(t *testing.T, path string, limit time.Duration, what string, exited <-chan int, stderr *lockedBuffer, cond func(*record.File) bool) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) {
		if f := ticks(path); f != nil && cond(f) {
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

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// YCSB workload A against a node that stops mid-run: the run goes on, the
// failed operations are counted as YCSB ERRORs and by kind, and once the
// node is back the session reconnects and the operations succeed again —
// all visible in the tick records.
func TestFaultYCSBNodeStoppedMidRun(t *testing.T) {
	node := testenv.StartOwnCassandra(t)
	dir := t.TempDir()
	props := filepath.Join(dir, "db.properties")
	os.WriteFile(props, []byte("hosts="+node.Host+"\nport="+itoa(node.Port)+"\n"), 0o600)
	f := func(p *ycsb.Props, log *slog.Logger) (ycsb.Binding, error) { return NewYCSB(p, log, os.Getenv) }
	run := func(ctx context.Context, out, errb *lockedBuffer, args ...string) int {
		return ycsb.Main(ctx, args, &ycsb.Env{Stdout: out, Stderr: errb, Version: "test", Bindings: map[string]ycsb.BindingFactory{"ycql": f}})
	}
	var out, errb lockedBuffer
	if c := run(context.Background(), &out, &errb, "load", "ycql", "-P", props, "-P", "workloads/workloada", "-p", "recordcount=2000",
		"-p", "threadcount=4", "-p", "ycql.createtable=true"); c != 0 {
		t.Fatalf("load: exit %d\n%s", c, errb.String())
	}
	recs := filepath.Join(dir, "records.jsonl")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	code := make(chan int, 1)
	out, errb = lockedBuffer{}, lockedBuffer{}
	go func() {
		code <- run(ctx, &out, &errb, "run", "ycql", "-P", props, "-P", "workloads/workloada", "-p", "recordcount=2000",
			"-p", "operationcount=0", "-p", "threadcount=4", "-p", "maxexecutiontime=600", "-p", "ybload.records="+recs,
			"-p", "cassandra.readtimeoutmillis=2000", "-p", "cassandra.connecttimeoutmillis=1000")
	}()
	okAll := func(f *record.File, since time.Time) (n int64) {
		for _, tk := range f.Ticks {
			if !tk.Start.Before(since) {
				n += tk.Count
			}
		}
		return n
	}
	failed := func(f *record.File) (n int64) {
		for _, tk := range f.Ticks {
			n += tk.Errors
		}
		return n
	}
	waitTicks(t, recs, 3*time.Minute, "operations before the stop", code, &errb, func(f *record.File) bool { return okAll(f, time.Time{}) > 200 })
	node.Stop(t)
	waitTicks(t, recs, 2*time.Minute, "failed operations while the node is down", code, &errb, func(f *record.File) bool { return failed(f) > 0 })
	node.Start(t)
	back := time.Now()
	waitTicks(t, recs, 3*time.Minute, "operations after the node is back", code, &errb, func(f *record.File) bool { return okAll(f, back.Add(2*time.Second)) > 200 })
	cancel()
	select {
	case c := <-code:
		if c != 0 {
			t.Fatalf("exit %d\n%s", c, errb.String())
		}
	case <-time.After(2 * time.Minute):
		t.Fatal("the agent did not stop")
	}
	rf := ticks(recs)
	if rf == nil || rf.End == nil {
		t.Fatal("no End record")
	}
	var errStatus, errs int64
	for _, tk := range rf.Ticks {
		errs += tk.Errors
		errStatus += tk.Statuses["ERROR"]
	}
	c := rf.End.Counters
	byKind := c["ycql_errors_timeout"] + c["ycql_errors_unavailable"] + c["ycql_errors_connection"] + c["ycql_errors_other"] + c["ycql_errors_cancelled"]
	if errs == 0 || errStatus != errs || c["ycql_statement_errors"] != errs || byKind != errs {
		t.Errorf("records: %d failed measurements, %d ERROR statuses; counters %v", errs, errStatus, c)
	}
	if c["ycql_host_down_events"] == 0 || c["ycql_host_up_events"] < 2 {
		t.Errorf("host events: %v", c)
	}
	t.Logf("failed %d; counters %v", errs, c)
}

func itoa(n int) string { return strconv.Itoa(n) }
