//go:build integration

package sysbench

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ybbench/ybbench/record"
)

// A rate no database takes fills the event queue: sysbench's fatal error
// by default (exit 5), and with --ybload-queue-full=stop a run that ends
// there, exits 0 and says in its records why it stopped (what a sweep step
// offered more than the database takes needs).
func TestIntegrationQueueFull(t *testing.T) {
	d := newTestDB(t)
	d.must(t, "oltp_point_select", "prepare", "--tables=1", "--table-size=100")
	args := []string{"oltp_point_select", "--tables=1", "--table-size=100", "--threads=1", "--rate=50000000", "--time=30"}

	fatal := d.sb(t, context.Background(), append(args, "run")...)
	if fatal.code != 5 || !strings.Contains(fatal.stderr, "FATAL: The event queue is full") {
		t.Errorf("default: exit %d, want 5 with sysbench's fatal message\n%s", fatal.code, fatal.stderr)
	}

	recs := filepath.Join(t.TempDir(), "run.jsonl")
	r := d.sb(t, context.Background(), append(args, "--ybload-queue-full=stop", "--ybload-records="+recs, "run")...)
	if r.code != 0 || strings.Contains(r.stderr, "FATAL") || !strings.Contains(r.stderr, "the run stopped there (--ybload-queue-full=stop)") {
		t.Errorf("stop: exit %d, want 0 and the stop said without FATAL\n%s", r.code, r.stderr)
	}
	f, err := os.Open(recs)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	file, err := record.Read(recs, f)
	if err != nil {
		t.Fatal(err)
	}
	if file.End == nil || file.End.Stop != "error" || !strings.Contains(file.End.Error, "event queue is full") {
		t.Errorf("the records' end does not say the queue was full: %+v", file.End)
	}
	if file.Meta.TargetOpsPerSec != 50000000 {
		t.Errorf("records' target %v, want the rate asked", file.Meta.TargetOpsPerSec)
	}
}
