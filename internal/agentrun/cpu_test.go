package agentrun_test

import (
	"context"
	"runtime"
	"testing"

	"github.com/ybbench/ybbench/infra"
	"github.com/ybbench/ybbench/internal/agentrun"
	"github.com/ybbench/ybbench/internal/hostcpu"
	"github.com/ybbench/ybbench/provision/localexec"
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
