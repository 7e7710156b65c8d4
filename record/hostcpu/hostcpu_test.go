package hostcpu_test

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/ybbench/ybbench/record/hostcpu"
)

func TestUse(t *testing.T) {
	// Node: 300 of 1000 ticks busy is 30%.
	node := hostcpu.Span{Before: hostcpu.Sample{Mode: "node", Busy: 100, Total: 1000, Hz: 100, Cores: 4, At: 10},
		After: hostcpu.Sample{Mode: "node", Busy: 400, Total: 2000, Hz: 100, Cores: 4, At: 12.5}}
	if u, ok := node.Use(); !ok || u.Percent != 30 || !strings.Contains(u.Source, "/proc/stat") || u.Seconds != 0 {
		t.Errorf("node: %+v %v", u, ok)
	}
	// Process: 200 ticks at 100 Hz are 2 CPU seconds over 1 s on 4 cores: 50%.
	proc := hostcpu.Span{Before: hostcpu.Sample{Mode: "process", Busy: 1000, Hz: 100, Cores: 4, At: 10},
		After: hostcpu.Sample{Mode: "process", Busy: 1200, Hz: 100, Cores: 4, At: 11}}
	if u, ok := proc.Use(); !ok || u.Percent != 50 || u.Seconds != 2 || u.SecondsAtEnd != 12 || !strings.Contains(u.Source, "4 cores") {
		t.Errorf("process: %+v %v", u, ok)
	}
	mixed := hostcpu.Span{Before: node.Before, After: proc.After}
	if _, ok := mixed.Use(); ok {
		t.Error("readings of two modes were compared")
	}
}

func TestWriteRead(t *testing.T) {
	dir := t.TempDir()
	if f, err := hostcpu.Read(dir, "workloada", "run"); f != nil || err != nil {
		t.Fatalf("no file: %v %v", f, err)
	}
	want := &hostcpu.File{Workload: "workloada", Phase: "run", Hosts: map[string]hostcpu.Span{"db-1": {
		Before: hostcpu.Sample{Mode: "node", Busy: 1, Total: 2, Hz: 100, Cores: 2, At: 1.5},
		After:  hostcpu.Sample{Mode: "node", Busy: 3, Total: 9, Hz: 100, Cores: 2, At: 2.5}}}}
	if err := hostcpu.Write(dir, want); err != nil {
		t.Fatal(err)
	}
	got, err := hostcpu.Read(dir, "workloada", "run")
	if err != nil || !reflect.DeepEqual(got, want) || got.Schema != hostcpu.Schema {
		t.Errorf("read back %+v, %v; want %+v", got, err, want)
	}
}

func TestSamplesOptional(t *testing.T) {
	// A file written before the phase was sampled has no samples and still
	// reads; one with samples keeps them in order between Before and After.
	dir := t.TempDir()
	old := []byte(`{"schema":"ybbench-cpu/1","workload":"w","phase":"run","hosts":{"db1":{"before":{"mode":"node","busy_ticks":1,"total_ticks":10,"hz":100,"cores":2,"at":1},"after":{"mode":"node","busy_ticks":6,"total_ticks":20,"hz":100,"cores":2,"at":2}}}}`)
	if err := os.MkdirAll(filepath.Join(dir, hostcpu.Dir), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(hostcpu.Path(dir, "w", "run"), old, 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := hostcpu.Read(dir, "w", "run")
	if err != nil || f == nil {
		t.Fatalf("old file: %v", err)
	}
	if got := f.Hosts["db1"].Readings(); len(got) != 2 || got[1].Busy != 6 {
		t.Errorf("readings of an unsampled span: %+v", got)
	}
	span := f.Hosts["db1"]
	span.Samples = []hostcpu.Sample{{Mode: "node", Busy: 3, Total: 15, Hz: 100, Cores: 2, At: 1.5}}
	f.Hosts["db1"] = span
	if err := hostcpu.Write(dir, f); err != nil {
		t.Fatal(err)
	}
	g, err := hostcpu.Read(dir, "w", "run")
	if err != nil {
		t.Fatal(err)
	}
	r := g.Hosts["db1"].Readings()
	if len(r) != 3 || r[1].Busy != 3 {
		t.Fatalf("readings: %+v", r)
	}
	// 2 of 5 ticks busy over the first half, 3 of 5 over the second.
	if u, ok := hostcpu.Between(r[0], r[1]); !ok || u.Percent != 40 {
		t.Errorf("first half: %+v", u)
	}
	if u, ok := hostcpu.Between(r[1], r[2]); !ok || u.Percent != 60 {
		t.Errorf("second half: %+v", u)
	}
}

// A process-mode reading taken while an exited connection's time was out
// of the sum (the run's end, from a local run's CPU file) is left out, so
// the interval around it reads its true average instead of a negative
// share and then five times the machine.
func TestSteady(t *testing.T) {
	at := []float64{0, 15.28, 23.37, 32.77, 42.19, 51.64, 57.43, 59.38, 60.96}
	busy := []int64{419, 1004, 1504, 2072, 2683, 3258, 1719, 3783, 3783}
	var r []hostcpu.Sample
	for i := range at {
		r = append(r, hostcpu.Sample{Mode: hostcpu.ModeProcess, Busy: busy[i], Hz: 100, Cores: 2, At: at[i]})
	}
	s := hostcpu.Steady(r)
	if len(s) != len(r)-1 || s[6].Busy != 3783 {
		t.Fatalf("steady readings %+v", s)
	}
	for i := 1; i < len(s); i++ {
		u, ok := hostcpu.Between(s[i-1], s[i])
		if !ok || u.Percent < 0 || u.Percent > 100 {
			t.Errorf("interval %d: %v%% (ok %v)", i, u.Percent, ok)
		}
	}
	// Over the left-out reading: (3783 − 3258) ticks ÷ 100 Hz ÷ (59.38 − 51.64) s ÷ 2 cores.
	if u, _ := hostcpu.Between(s[5], s[6]); u.Percent != 33.9 {
		t.Errorf("the interval over the left-out reading: %v%%, want 33.9", u.Percent)
	}
}
