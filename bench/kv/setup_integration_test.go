//go:build integration

package kv

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// lineWatch is a writer that closes seen once what was written holds want.
type lineWatch struct {
	mu   sync.Mutex
	b    bytes.Buffer
	want string
	seen chan struct{}
	once sync.Once
}

func (w *lineWatch) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	n, err := w.b.Write(p)
	if strings.Contains(w.b.String(), w.want) {
		w.once.Do(func() { close(w.seen) })
	}
	return n, err
}

func (w *lineWatch) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.String()
}

var setupInterruptedLine = regexp.MustCompile(`interrupted during set-up: [\d,]+ of 100,000 keys written; the workload did not start`)

// Stopped (as by Ctrl-C) during its pure-read set-up, the agent says what
// was interrupted and how far it got, writes the summary so far and exits
// as a stopped run phase does (0); it never reports a bare "context
// canceled", and measures nothing.
func TestIntegrationKVInterruptedDuringSetup(t *testing.T) {
	nodes, s := node(t)
	ks := ownKeyspace(t, s)
	dir := t.TempDir()
	sum := filepath.Join(dir, "summary.json")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	errw := &lineWatch{want: "pure read setup", seen: make(chan struct{})}
	code := make(chan int, 1)
	go func() {
		code <- Main(ctx, []string{"--workload", "CassandraKeyValue", "--nodes", nodes, "--nouuid", "--num_threads_read", "8",
			"--num_threads_write", "0", "--num_reads", "-1", "--ybload_keyspace", ks, "--ybload_summary", sum, "--ybload_stagger_ms", "0"},
			&Env{Stdout: &bytes.Buffer{}, Stderr: errw, Getenv: func(string) string { return "" }, Version: "test"})
	}()
	select {
	case <-errw.seen:
	case c := <-code:
		t.Fatalf("exit %d before the set-up began:\n%s", c, errw.String())
	case <-time.After(2 * time.Minute):
		t.Fatalf("no set-up after 2 minutes:\n%s", errw.String())
	}
	cancel() // as the first SIGINT
	var c int
	select {
	case c = <-code:
	case <-time.After(2 * time.Minute):
		t.Fatal("the agent did not stop")
	}
	out := errw.String()
	if c != 0 || !setupInterruptedLine.MatchString(out) || strings.Contains(out, "context canceled") {
		t.Fatalf("exit %d, want 0 with %q and no bare cancellation:\n%s", c, setupInterruptedLine, out)
	}
	b, err := os.ReadFile(sum)
	if err != nil {
		t.Fatalf("no summary: %v", err)
	}
	var summary Summary
	if err := json.Unmarshal(b, &summary); err != nil {
		t.Fatal(err)
	}
	if summary.Stop != stopDuringSetup || len(summary.Measurements) != 0 || summary.Counters["setup_keys"] >= PureReadSetupKeys {
		t.Errorf("summary: stop %q, %d measurements, %d setup keys; want the set-up's part, nothing measured", summary.Stop, len(summary.Measurements), summary.Counters["setup_keys"])
	}
}
