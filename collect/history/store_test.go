package history

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ybbench/ybbench/collect/history/historytest"
)

// entryOf is the entry of a synthetic run.
func entryOf(t *testing.T, parent, runID string, at time.Time, build string, scale float64) *Entry {
	t.Helper()
	dir := historytest.Run(t, parent, runID, at, build, scale)
	r, err := ReadResultFile(filepath.Join(dir, "result.json"))
	if err != nil {
		t.Fatal(err)
	}
	e, err := FromResult(r, Build{})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// The embedded store keeps each run once: adding it again adds nothing;
// what is read back is what was added.
func TestSQLiteStoreAddsOnce(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "sub", "history.db")
	st, err := Open(ctx, "sqlite:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	e := entryOf(t, t.TempDir(), "r1", time.Unix(1_800_000_000, 0), "b1", 1)
	for i, want := range []bool{true, false} {
		added, err := st.Add(ctx, e)
		if err != nil || added != want {
			t.Fatalf("add #%d: added %v (want %v), %v", i+1, added, want, err)
		}
	}
	got, err := st.Entries(ctx)
	if err != nil || len(got) != 1 {
		t.Fatalf("entries: %d, %v", len(got), err)
	}
	if got[0].RunID != "r1" || got[0].Build.ID != "b1" || len(got[0].Points) != len(e.Points) ||
		!equal(got[0].Points[0].Figures["throughput"], e.Points[0].Figures["throughput"]) {
		t.Errorf("read back %+v, added %+v", got[0], e)
	}
}

// Writers at once, each with a store of its own as two CI jobs would
// have, lose nothing: every distinct run is there once, whatever the
// order, and the run they all add is there once.
func TestSQLiteConcurrentWriters(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "history.db")
	parent := t.TempDir()
	const writers = 8
	entries := make([]*Entry, writers)
	for i := range entries {
		entries[i] = entryOf(t, parent, fmt.Sprintf("run-%d", i), time.Unix(1_800_000_000+int64(i), 0), fmt.Sprintf("b%d", i), 1)
	}
	shared := entryOf(t, t.TempDir(), "shared", time.Unix(1_700_000_000, 0), "b-shared", 1)
	var wg sync.WaitGroup
	errs := make(chan error, 2*writers)
	var addedShared sync.Map
	for i := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			st, err := Open(ctx, path)
			if err != nil {
				errs <- err
				return
			}
			defer st.Close()
			if added, err := st.Add(ctx, entries[i]); err != nil || !added {
				errs <- fmt.Errorf("writer %d: added %v, %v", i, added, err)
			}
			added, err := st.Add(ctx, shared)
			if err != nil {
				errs <- err
			}
			addedShared.Store(i, added)
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	n := 0
	addedShared.Range(func(_, v any) bool {
		if v.(bool) {
			n++
		}
		return true
	})
	if n != 1 {
		t.Errorf("the shared run was added by %d writers, want 1", n)
	}
	st, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	got, err := st.Entries(ctx)
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]int{}
	for _, e := range got {
		ids[e.RunID]++
	}
	if len(got) != writers+1 || ids["shared"] != 1 {
		t.Errorf("%d entries (%v), want %d runs once each", len(got), ids, writers+1)
	}
}

// A store a newer ybbench wrote is refused when opened, saying so, before
// anything is written to it; the same file at this version opens.
func TestSQLiteNewerSchemaRefused(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "history.db")
	st, err := Open(ctx, path)
	if err != nil {
		t.Fatalf("control: %v", err)
	}
	st.Close()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`INSERT INTO ybbench_history_schema (version, applied) VALUES (?, 'later')`, SchemaVersion+1); err != nil {
		t.Fatal(err)
	}
	db.Close()
	_, err = Open(ctx, path)
	if !errors.Is(err, ErrNewerSchema) || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), fmt.Sprintf("version %d", SchemaVersion+1)) {
		t.Errorf("newer schema: %v", err)
	}
}

// A URL names a store, or is refused naming what is understood.
func TestKindOf(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct{ url, kind string }{
		{"postgres://u:p@h/db", KindPostgres}, {"postgresql://h/db", KindPostgres}, {"s3://bucket/prefix", KindS3},
		{"sqlite:/x/h.db", KindSQLite}, {"/x/history.db", KindSQLite}, {dir, KindDir}, {"dir:" + dir, KindDir}, {"", KindSQLite},
	} {
		if k, _, err := KindOf(c.url); err != nil || k != c.kind {
			t.Errorf("%q: %s, %v; want %s", c.url, k, err, c.kind)
		}
	}
	_, _, err := KindOf("mysql://u:secret@h/db")
	if err == nil || !strings.Contains(err.Error(), "want postgres://") || strings.Contains(err.Error(), "secret") {
		t.Errorf("an unknown kind: %v", err)
	}
}

// A directory of run directories is a history as it stands: each
// result's entry, and a result that is not one refused, naming its file.
func TestDirStore(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	historytest.Run(t, dir, "a", time.Unix(1_800_000_000, 0), "b1", 1)
	historytest.Run(t, dir, "b", time.Unix(1_800_000_100, 0), "b2", 0.5)
	st, err := Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	es, err := st.Entries(ctx)
	if err != nil || len(es) != 2 {
		t.Fatalf("entries %d, %v", len(es), err)
	}
	other := t.TempDir()
	historytest.Run(t, other, "c", time.Unix(1_800_000_200, 0), "b3", 1)
	a, err := AddRun(ctx, st, filepath.Join(other, "c"), Build{})
	if err != nil || !a.Added {
		t.Fatalf("add c: %+v, %v", a, err)
	}
	if a, err := AddRun(ctx, st, filepath.Join(other, "c"), Build{}); err != nil || a.Added {
		t.Errorf("add c again: %+v, %v", a, err)
	}
	if es, _ := st.Entries(ctx); len(es) != 3 {
		t.Errorf("%d entries after adding c", len(es))
	}
	bad := filepath.Join(dir, "broken")
	historytest.Run(t, dir, "broken", time.Unix(1_800_000_300, 0), "b4", 1)
	m := historytest.ReadMap(t, filepath.Join(bad, "result.json"))
	m["workloads"] = "nope"
	historytest.WriteMap(t, filepath.Join(bad, "result.json"), m)
	if _, err := st.Entries(ctx); err == nil || !strings.Contains(err.Error(), filepath.Join(bad, "result.json")) || !strings.Contains(err.Error(), "workloads") {
		t.Errorf("a broken result: %v", err)
	}
}
