package agentrun_test

import (
	"context"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/ybbench/ybbench/infra"
	"github.com/ybbench/ybbench/pipeline/agentrun"
	"github.com/ybbench/ybbench/provision/localexec"
	"github.com/ybbench/ybbench/record/hostcpu"
)

// The node sampler, run on this machine, reads its counters: as many
// cores as Go sees, and a busy share that only grows.
func TestSampleCPUOnThisMachine(t *testing.T) {
	h := infra.Host{Name: "db-1"}
	r := localexec.New()
	a := agentrun.SampleCPU(context.Background(), r, []infra.Host{h})
	b := agentrun.SampleCPU(context.Background(), r, []infra.Host{h})
	s, ok := a["db-1"]
	if !ok || b["db-1"].Mode != hostcpu.ModeNode {
		t.Fatalf("no node reading: %+v %+v", a, b)
	}
	if s.Cores != int64(runtime.NumCPU()) {
		t.Errorf("%d cores, Go sees %d", s.Cores, runtime.NumCPU())
	}
	if b["db-1"].Busy < s.Busy || b["db-1"].Total < s.Total || s.Busy > s.Total {
		t.Errorf("counters went back: %+v then %+v", s, b["db-1"])
	}
	if _, err := agentrun.ParseCPU([]byte(`{"mode":"node","busy_ticks":1,"hz":100,"cores":2,"at":1,"extra":1}`)); err == nil {
		t.Error("a reading with an unknown field was accepted")
	}
}

// procStat reads this machine's aggregate cpu line: busy (user + nice +
// system) and total (those with idle, iowait, irq, softirq, steal) ticks.
func procStat(t *testing.T) (busy, total int64) {
	t.Helper()
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		t.Fatal(err)
	}
	line, _, _ := strings.Cut(string(b), "\n")
	f := strings.Fields(line)
	if len(f) < 9 || f[0] != "cpu" {
		t.Fatalf("/proc/stat starts with %q", line)
	}
	var v [8]int64
	for i := range v {
		if v[i], err = strconv.ParseInt(f[i+1], 10, 64); err != nil {
			t.Fatalf("/proc/stat field %d: %v", i+1, err)
		}
	}
	busy = v[0] + v[1] + v[2]
	return busy, busy + v[3] + v[4] + v[5] + v[6] + v[7]
}

// The node reading is this machine's /proc/stat: read here just before and
// just after, its counters lie between the two readings.
func TestNodeCPUIsProcStat(t *testing.T) {
	h := infra.Host{Name: "db-1"}
	b0, t0 := procStat(t)
	s, ok := agentrun.SampleCPU(context.Background(), localexec.New(), []infra.Host{h})["db-1"]
	b1, t1 := procStat(t)
	if !ok || s.Mode != hostcpu.ModeNode {
		t.Fatalf("no node reading: %+v", s)
	}
	if s.Busy < b0 || s.Busy > b1 || s.Total < t0 || s.Total > t1 {
		t.Errorf("the sampler read busy %d total %d; /proc/stat said busy %d..%d, total %d..%d", s.Busy, s.Total, b0, b1, t0, t1)
	}
}
