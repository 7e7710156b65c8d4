package ycsb

import (
	"context"
	"math/rand/v2"
	"testing"
)

// The null binding makes an update's value bytes by default (the value's
// random source moves on) and leaves them unmade with null.values=skip (it
// does not), as YCSB's BasicDB leaves its lazy values unread.
func TestNullBindingValues(t *testing.T) {
	for _, c := range []struct {
		values string
		made   bool
	}{{"", true}, {"produce", true}, {"skip", false}} {
		p := NewProps()
		if c.values != "" {
			p.SetFlag("null.values", c.values, "-p")
		}
		b, err := NewNullBinding(p, nil)
		if err != nil {
			t.Fatal(err)
		}
		db, err := b.NewDB(context.Background(), 0, 1)
		if err != nil {
			t.Fatal(err)
		}
		used, twin := rand.New(rand.NewPCG(9, 9)), rand.New(rand.NewPCG(9, 9))
		if st := db.Update(context.Background(), "usertable", "user1", []Field{{Name: "field0", Value: RandomValue(100, used)}}); st != OK {
			t.Fatalf("null.values=%q: update status %v", c.values, st)
		}
		if made := used.Uint64() != twin.Uint64(); made != c.made {
			t.Errorf("null.values=%q: value made %v, want %v", c.values, made, c.made)
		}
		if got := b.(Describer).Settings()["null.values"]; got == "" {
			t.Errorf("null.values=%q: not in the settings", c.values)
		}
	}
}
