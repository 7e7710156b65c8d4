package pipeline

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ybbench/ybbench/internal/golden"
)

func TestSummarizeStatus(t *testing.T) {
	line := "2025-01-01 10:00:10:004 10 sec: 376385 operations; 37634.74 current ops/sec; est completion in 2 minutes [READ: Count=188431, Max=154495, Min=157, Avg=548.39, 90=739, 99=3513, 99.9=15359, 99.99=44991] [CLEANUP: Count=0, Max=0, Min=0, Avg=0, 90=0, 99=0, 99.9=0, 99.99=0] "
	if got, want := summarizeStatus(line), "10s: 376385 ops, now 37634.74 ops/s, READ p99 3513 µs"; got != want {
		t.Errorf("got %q\nwant %q", got, want)
	}
	if summarizeStatus("Loading workload...") != "" {
		t.Error("non-status lines are not summarised")
	}
}

// replay feeds a recorded event stream (testdata/progress/*.events) to a
// view and returns every frame, each under the event that produced it.
func replay(t *testing.T, events string) (frames [][]string, text string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "progress", events))
	if err != nil {
		t.Fatal(err)
	}
	v := newView()
	var out strings.Builder
	for i, line := range strings.Split(strings.TrimRight(string(b), "\n"), "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, "\t")
		want := map[string]int{"stage": 3, "end": 3, "host": 3, "agent": 3, "note": 2}[f[0]]
		if want == 0 || len(f) != want {
			t.Fatalf("%s:%d: want an event of %d fields, got %q", events, i+1, want, line)
		}
		switch f[0] {
		case "stage":
			v.stage(f[1], f[2])
		case "end":
			v.end(f[1], f[2])
		case "host":
			v.host(f[1], f[2])
		case "agent":
			v.agent(f[1], f[2])
		case "note":
			v.note(f[1])
		}
		fr := v.frame()
		frames = append(frames, fr)
		fmt.Fprintf(&out, "after line %d: %s %s\n", i+1, f[0], f[1])
		for _, l := range fr {
			out.WriteString("| " + l + "\n")
		}
	}
	return frames, out.String()
}

// The live view's frames over a recorded run: every frame is pinned
// (golden), and the view tells the truth: no host or agent line outlives
// the stage or phase it was reported in, and the last frame says what the
// teardown left.
func TestLiveViewFrames(t *testing.T) {
	frames, text := replay(t, "local-quick.events")
	golden.Check(t, filepath.Join("progress", "local-quick.frames"), []byte(text))
	stageOf := func(fr []string) string { return strings.Fields(fr[0])[1] }
	for i, fr := range frames {
		body := strings.Join(fr, "\n")
		if stageOf(fr) != "agents" && strings.Contains(body, "uploading the load agent") {
			t.Errorf("frame %d (stage %s) still says a client is uploading the load agent:\n%s", i, stageOf(fr), body)
		}
		if stageOf(fr) != "bench/workloada/load" && strings.Contains(body, "INSERT p99 31743") {
			t.Errorf("frame %d (stage %s) shows the last line of workloada's load phase:\n%s", i, stageOf(fr), body)
		}
		if !strings.HasPrefix(stageOf(fr), "bench/") && strings.Contains(body, "ops/s") {
			t.Errorf("frame %d (stage %s) shows an agent's rate outside the bench:\n%s", i, stageOf(fr), body)
		}
	}
	last := strings.Join(frames[len(frames)-1], "\n")
	if !strings.Contains(last, "stage: down") || !strings.Contains(last, "torn down, nothing left") {
		t.Errorf("the last frame does not confirm the teardown:\n%s", last)
	}
}

// What the last frame says of a teardown: nothing left, what stays on an
// inventory's machines, or what remains after a teardown that failed.
func TestTeardownOutcome(t *testing.T) {
	for _, c := range []struct {
		name    string
		err     error
		reuses  bool
		left    map[string]string
		want    string
		wantNot string
	}{
		{name: "destroyed", want: "torn down, nothing left: the hosts are destroyed"},
		{name: "inventory clean", reuses: true, want: "which stay (an inventory's machines are never deleted); nothing else left"},
		{name: "inventory with changes", reuses: true, left: map[string]string{"db2": "useradd postgres", "db1": "apt-get install postgresql"},
			want: "left on them: db1: apt-get install postgresql; db2: useradd postgres"},
		{name: "failed", err: errors.New("destroy: terraform: exit 1\nmore"), want: "teardown incomplete, resources may remain: destroy: terraform: exit 1 (ybbench down --run runs/x retries)",
			wantNot: "nothing left"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := teardownOutcome(c.err, c.reuses, c.left, "runs/x")
			if !strings.Contains(got, c.want) {
				t.Errorf("got %q\nwant it to contain %q", got, c.want)
			}
			if c.wantNot != "" && strings.Contains(got, c.wantNot) {
				t.Errorf("got %q: it must not say %q", got, c.wantNot)
			}
		})
	}
}

// A view told of nothing but an outcome (a down with nothing to do) shows
// that stage and its outcome; one told of nothing shows no empty stage.
func TestViewWithoutAStage(t *testing.T) {
	v := newView()
	if fr := v.frame(); len(fr) != 0 {
		t.Errorf("an empty view draws %q", fr)
	}
	v.end("down", "already torn down, nothing left")
	if got, want := strings.Join(v.frame(), "\n"), "stage: down\n  already torn down, nothing left"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
