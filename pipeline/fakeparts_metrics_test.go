package pipeline_test

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/ybbench/ybbench/bench/livemetrics/livemetricstest"
	"github.com/ybbench/ybbench/pipeline"
	"github.com/ybbench/ybbench/record"
)

// freePort is a TCP port nothing listens on at the moment.
func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// With metrics_addr, the agents the run starts serve their live metrics on
// their client's private address (the fake client's is 127.0.0.1): the
// run phase is scraped while it runs; each agent closes its server as it
// exits, or the next phase's could not listen on the same port; and every
// load and run phase's records say the agent was given the address.
func TestFakePartsMetricsAddr(t *testing.T) {
	port := freePort(t)
	addr := "127.0.0.1:" + strconv.Itoa(port)
	fr := newFakeWith(t, nil, func(s *pipeline.Spec) {
		s.MetricsAddr = ":" + strconv.Itoa(port)
		s.Workloads = []string{"workloada"}
		// A run phase long enough to be scraped: 600 operations at 300 a
		// second.
		s.Operations = new(int64(600))
		s.AgentProperties["target"] = "300"
	}, nil)
	ctx, cancel := context.WithCancel(t.Context())
	seen := make(chan livemetricstest.Families, 1)
	go func() {
		f, err := livemetricstest.Until(ctx, addr, func(f livemetricstest.Families) bool {
			n, _ := f.Value("ybload_operations_total", "op", "READ")
			tgt, _ := f.Value("ybload_target_ops_per_second")
			return f.Phase() == "run" && n > 0 && tgt == 300
		})
		if err == nil {
			seen <- f
		}
		close(seen)
	}()
	fr.err = fr.run.Execute(t.Context(), t.Context())
	cancel()
	if fr.err != nil {
		t.Fatalf("execute: %v", fr.err)
	}
	if _, ok := <-seen; !ok {
		t.Errorf("the run phase's agent was never scraped on %s with operations counted", addr)
	}
	files, _ := filepath.Glob(filepath.Join(fr.run.Dir(), "agents", "client-1", "*.jsonl"))
	if len(files) != 2 {
		t.Fatalf("records %v, want the load's and the run's", files)
	}
	for _, p := range files {
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		recs, err := record.Read(p, f)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		if got := recs.Meta.Settings["prop.ybload.metrics.addr"]; got != addr {
			t.Errorf("%s: the agent was given ybload.metrics.addr=%q, want %q", filepath.Base(p), got, addr)
		}
	}
	if b, err := os.ReadFile(filepath.Join(fr.run.Dir(), "agents", "client-1", "workloada-prepare.json")); err != nil || strings.Contains(string(b), "metrics") {
		t.Errorf("the prepare phase (measuring nothing) was given a metrics address, or has no summary: %v", err)
	}
}
