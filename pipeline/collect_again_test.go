package pipeline_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ybbench/ybbench/collect"
	"github.com/ybbench/ybbench/pipeline"
)

// Collecting a run again gives the same result.json, byte for byte: the
// commands that worked on the run after it was made (a second `ybbench
// collect`) are kept in invocations.json, not in the result. series.json
// is the same again too.
func TestCollectAgainGivesTheSameResult(t *testing.T) {
	fr := executeFake(t, nil)
	if fr.err != nil {
		t.Fatalf("execute: %v", fr.err)
	}
	dir := fr.run.Dir()
	if err := fr.run.Close(); err != nil {
		t.Fatal(err)
	}
	// Collect twice as two later commands would (reopened, their own
	// command lines), each reading the run directory alone.
	collectAgain := func(args ...string) (result, series []byte) {
		t.Helper()
		deps := fr.deps
		deps.Args = args
		r, err := pipeline.Open(dir, deps)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		if err := r.Collect(t.Context()); err != nil {
			t.Fatalf("%s: %v", strings.Join(args, " "), err)
		}
		b, err := os.ReadFile(filepath.Join(dir, pipeline.ResultFile))
		if err != nil {
			t.Fatal(err)
		}
		s, err := os.ReadFile(filepath.Join(dir, collect.SeriesFile))
		if err != nil {
			t.Fatal(err)
		}
		return b, s
	}
	first, firstSeries := collectAgain("ybbench", "collect", "--run", dir)
	invBefore, err := os.ReadFile(filepath.Join(dir, pipeline.InvocationsFile))
	if err != nil {
		t.Fatal(err)
	}
	second, secondSeries := collectAgain("ybbench", "collect", "--run", filepath.Base(dir), "--runs-dir", filepath.Dir(dir))
	if !bytes.Equal(first, second) {
		t.Errorf("result.json changed when collected again:\n%s", lineDiff(string(first), string(second)))
	}
	if !bytes.Equal(firstSeries, secondSeries) {
		t.Errorf("series.json changed when collected again:\n%s", lineDiff(string(firstSeries), string(secondSeries)))
	}
	// The second collect is on record, where the history is kept.
	invAfter, err := os.ReadFile(filepath.Join(dir, pipeline.InvocationsFile))
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(invBefore, invAfter) || !strings.Contains(string(invAfter), `"collect"`) {
		t.Errorf("invocations.json does not record the second collect:\n%s", invAfter)
	}
}

// lineDiff lists the lines of b that differ from a's at the same place.
func lineDiff(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	var out []string
	for i := 0; i < len(al) || i < len(bl); i++ {
		var x, y string
		if i < len(al) {
			x = al[i]
		}
		if i < len(bl) {
			y = bl[i]
		}
		if x != y {
			out = append(out, "- "+x, "+ "+y)
		}
		if len(out) > 20 {
			break
		}
	}
	return strings.Join(out, "\n")
}
