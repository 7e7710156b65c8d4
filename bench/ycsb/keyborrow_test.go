package ycsb

import (
	"context"
	"testing"

	"github.com/ybbench/ybbench/bench"
)

// keepingDB keeps every key it is given, beside a copy made at the call.
type keepingDB struct {
	nullDB
	borrows      bool
	kept, copies []string
}

func (k *keepingDB) keep(key string) {
	k.kept = append(k.kept, key)
	k.copies = append(k.copies, string([]byte(key)))
}
func (k *keepingDB) BorrowsKeys() bool { return k.borrows }
func (k *keepingDB) Read(_ context.Context, _, key string, _ []string, _ map[string][]byte) Status {
	k.keep(key)
	return OK
}
func (k *keepingDB) Update(_ context.Context, _, key string, _ []Field) Status {
	k.keep(key)
	return OK
}

type keepingBinding struct{ db *keepingDB }

func (b keepingBinding) NewDB(context.Context, int, int) (DB, error) { return b.db, nil }

// A DB that does not say it borrows keys may keep them: each stays what it
// was when given. One that says it borrows them is given views of the
// worker's buffer (the keys it kept change under it: the view is what makes
// the null binding's keys free, and why a keeping DB must not say so).
func TestKeysAreCopiedUnlessTheDBBorrowsThem(t *testing.T) {
	for _, borrows := range []bool{false, true} {
		p := NewProps()
		data, _ := BuiltinWorkload("workloada")
		if err := p.LoadFile("workloada", data); err != nil {
			t.Fatal(err)
		}
		p.SetFlag("recordcount", "100000", "-p")
		cfg, err := ReadConfig(p)
		if err != nil {
			t.Fatal(err)
		}
		db := &keepingDB{borrows: borrows}
		core, err := NewCore(cfg, false, keepingBinding{db}, 1, nil)
		if err != nil {
			t.Fatal(err)
		}
		w, err := core.NewWorker(context.Background(), 0, bench.NewRecorder())
		if err != nil {
			t.Fatal(err)
		}
		for range 3 * keyChunk / 10 { // keys over more than one arena chunk
			if err := w.Do(context.Background()); err != nil {
				t.Fatal(err)
			}
		}
		changed := 0
		for i := range db.kept {
			if db.kept[i] != db.copies[i] {
				changed++
			}
		}
		switch {
		case !borrows && changed > 0:
			t.Errorf("%d of %d kept keys changed after the call that gave them", changed, len(db.kept))
		case borrows && changed == 0:
			t.Errorf("a borrowing DB's %d kept keys never changed: it was given copies", len(db.kept))
		}
	}
}
