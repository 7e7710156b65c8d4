package kv

import (
	"math/rand/v2"
	"sync"
	"testing"
)

func TestKeyGenHandsOutKeysInOrderThenUpdates(t *testing.T) {
	g := NewKeyGen(5, -1)
	r := rand.New(rand.NewPCG(1, 2))
	if _, ok := g.NextRead(r); ok {
		t.Fatal("a read key before any write")
	}
	for want := int64(0); want < 5; want++ {
		if got := g.NextWrite(r); got != want {
			t.Fatalf("write %d: key %d", want, got)
		}
	}
	// Completions out of order: the watermark waits for the oldest.
	for _, k := range []int64{1, 2} {
		g.Written(k)
	}
	if g.MaxWritten() != -1 {
		t.Fatalf("watermark %d before key 0 completed", g.MaxWritten())
	}
	g.Written(0)
	if g.MaxWritten() != 2 {
		t.Fatalf("watermark %d, want 2", g.MaxWritten())
	}
	g.WriteFailed(3) // a failure also moves the watermark, but the key is never read
	g.Written(4)
	if g.MaxWritten() != 4 || g.Failed() != 1 {
		t.Fatalf("watermark %d failed %d", g.MaxWritten(), g.Failed())
	}
	// All unique keys done: writes update random keys in [0, 4), reads
	// choose in [0, 4) but never key 3.
	seen := map[int64]int{}
	for i := 0; i < 4000; i++ {
		w := g.NextWrite(r)
		if w < 0 || w >= 4 {
			t.Fatalf("update key %d outside [0, 4)", w)
		}
		k, ok := g.NextRead(r)
		if !ok || k == 3 || k < 0 || k >= 4 {
			t.Fatalf("read key %d", k)
		}
		seen[k]++
	}
	if len(seen) != 3 {
		t.Errorf("reads touched %v, want keys 0, 1, 2", seen)
	}
}

// The watermark ends exactly at the last unique key however writes
// interleave, and reads stay below it throughout.
func TestKeyGenConcurrentWriters(t *testing.T) {
	const keys = 20000
	g := NewKeyGen(keys, -1)
	var wg sync.WaitGroup
	for w := 0; w < 16; w++ {
		wg.Add(1)
		go func(seed uint64) {
			defer wg.Done()
			r := rand.New(rand.NewPCG(seed, 7))
			for {
				if g.MaxGenerated() >= keys-1 {
					return
				}
				k := g.NextWrite(r)
				if r.IntN(50) == 0 {
					g.WriteFailed(k)
				} else {
					g.Written(k)
				}
				if rk, ok := g.NextRead(r); ok && rk > g.MaxWritten() {
					t.Errorf("read %d above the watermark", rk)
				}
			}
		}(uint64(w))
	}
	wg.Wait()
	if g.MaxWritten() != keys-1 {
		t.Errorf("watermark %d, want %d (generated %d)", g.MaxWritten(), keys-1, g.MaxGenerated())
	}
}

func TestKeyGenResumesAtMaxWrittenKey(t *testing.T) {
	g := NewKeyGen(100, 49)
	r := rand.New(rand.NewPCG(3, 4))
	if got := g.NextWrite(r); got != 50 {
		t.Errorf("first write %d, want 50", got)
	}
	if k, ok := g.NextRead(r); !ok || k >= 49 {
		t.Errorf("read %d %v", k, ok)
	}
}

func TestKeyText(t *testing.T) {
	if got := string(appendKey(nil, "key", 123)); got != "key:123" {
		t.Errorf("--nouuid key %q", got)
	}
	u := "5f0e3c1a-9d2b-4c7e-8a61-0b2f4e6d8c9a"
	if got := string(appendKey(make([]byte, 3), u, 0)); got != u+":0" {
		t.Errorf("UUID key %q", got)
	}
}

// One unique key: once written, every write overwrites key 0 (the random
// pick over [0, 0) would panic).
func TestKeyGenOneUniqueKey(t *testing.T) {
	g := NewKeyGen(1, -1)
	r := rand.New(rand.NewPCG(5, 6))
	if k := g.NextWrite(r); k != 0 {
		t.Fatalf("first write %d, want 0", k)
	}
	if err := g.Written(0); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ {
		if k := g.NextWrite(r); k != 0 {
			t.Fatalf("write %d after the only key: %d, want 0", i, k)
		}
	}
}
