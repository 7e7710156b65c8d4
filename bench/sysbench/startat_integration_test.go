//go:build integration

package sysbench

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ybbench/ybbench/record"
)

// --ybload-start-at holds back every event, warm-up included, until the
// instant: the database's own clock (a trigger stamping each insert with
// clock_timestamp()) sees no insert before it, and neither do the records.
func TestIntegrationStartAt(t *testing.T) {
	d := newTestDB(t)
	d.must(t, "oltp_insert", "prepare", "--tables=1", "--table-size=10")
	d.exec(t, "CREATE TABLE op_times (at timestamptz NOT NULL)")
	d.exec(t, "CREATE FUNCTION note_op() RETURNS trigger AS $$ BEGIN INSERT INTO op_times VALUES (clock_timestamp()); RETURN NEW; END $$ LANGUAGE plpgsql")
	d.exec(t, "CREATE TRIGGER note_op BEFORE INSERT ON sbtest1 FOR EACH ROW EXECUTE FUNCTION note_op()")

	recs := filepath.Join(t.TempDir(), "run.jsonl")
	at := time.Now().Add(300 * time.Millisecond).Truncate(time.Millisecond)
	r := d.must(t, "oltp_insert", "run", "--tables=1", "--table-size=10", "--threads=1", "--rate=50", "--time=1", "--warmup-time=1",
		"--ybload-start-at="+strconv.FormatInt(at.UnixMilli(), 10), "--ybload-records="+recs)
	if !strings.Contains(r.stderr, "Waiting ") || !strings.Contains(r.stderr, "for the start time "+at.Format(time.RFC3339Nano)) {
		t.Errorf("no line about the wait on stderr:\n%s", r.stderr)
	}

	first := time.Unix(0, 0)
	if err := d.conn.QueryRow(t.Context(), "SELECT min(at) FROM op_times").Scan(&first); err != nil {
		t.Fatal(err)
	}
	if n := d.int(t, "SELECT count(*) FROM op_times"); n == 0 {
		t.Fatalf("no insert reached the database:\n%s\n%s", r.stdout, r.stderr)
	}
	if first.Before(at) {
		t.Errorf("the database saw the first insert at %v, %v before the start time %v", first, at.Sub(first), at)
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
	if file.Meta.Start.Before(at) {
		t.Errorf("the records say the run began at %v, before the start time %v", file.Meta.Start, at)
	}
	if len(file.Ticks) == 0 || file.Ticks[0].Start.Before(at) {
		t.Errorf("first tick %+v starts before %v", file.Ticks, at)
	}
}
