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

// The embedded store keeps the contract of every store.
func TestSQLiteConcurrentWriters(t *testing.T) {
	storeContract(t, "sqlite:"+filepath.Join(t.TempDir(), "history.db"))
}

// storeContract is what every store keeps to: each run once however many
// writers add it at once (the first of eight opening a fresh store makes
// its tables while the others wait), entries read back whole.
func storeContract(t *testing.T, url string) {
	t.Helper()
	ctx := context.Background()
	parent := t.TempDir()
	const writers = 8
	var wg sync.WaitGroup
	errs := make(chan error, 3*writers)
	added := make(chan bool, writers)
	shared := entryOf(t, t.TempDir(), "shared", time.Unix(1_700_000_000, 0), "b-shared", 1)
	entries := make([]*Entry, writers)
	for i := range entries {
		entries[i] = entryOf(t, parent, fmt.Sprintf("run-%d", i), time.Unix(1_800_000_000+int64(i), 0), fmt.Sprintf("b%d", i), 1+float64(i)/10)
	}
	for i := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			st, err := Open(ctx, url)
			if err != nil {
				errs <- fmt.Errorf("writer %d: open: %w", i, err)
				return
			}
			defer st.Close()
			if ok, err := st.Add(ctx, entries[i]); err != nil || !ok {
				errs <- fmt.Errorf("writer %d: added %v, %v", i, ok, err)
			}
			ok, err := st.Add(ctx, shared)
			if err != nil {
				errs <- err
			}
			added <- ok
		}()
	}
	wg.Wait()
	close(errs)
	close(added)
	for err := range errs {
		t.Error(err)
	}
	n := 0
	for ok := range added {
		if ok {
			n++
		}
	}
	if n != 1 {
		t.Errorf("the shared run was added by %d writers, want 1", n)
	}
	st, err := Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	got, err := st.Entries(ctx)
	if err != nil {
		t.Fatal(err)
	}
	byID := map[string]*Entry{}
	for _, e := range got {
		byID[e.RunID] = e
	}
	if len(got) != writers+1 || len(byID) != writers+1 {
		t.Fatalf("%d entries, want %d runs once each", len(got), writers+1)
	}
	for _, e := range entries {
		g := byID[e.RunID]
		if g == nil || g.Build.ID != e.Build.ID || !equal(g.Points[0].Figures["throughput"], e.Points[0].Figures["throughput"]) {
			t.Errorf("run %s read back as %+v", e.RunID, g)
		}
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
