package kv

import (
	"errors"
	"math/rand/v2"
	"strconv"
	"sync"
	"sync/atomic"
)

// keyWindow bounds how far completed writes may run ahead of the oldest
// write still in flight (key numbers); in-flight keys are at most writers ×
// batch size, far below it.
const keyWindow = 1 << 20

// Slot states of the key window.
const (
	slotPending uint32 = iota
	slotWritten
	slotFailed
)

// ErrKeyWindow is returned when more keys are in flight than the window holds.
var ErrKeyWindow = errors.New("more than 2^20 keys in flight past the oldest unfinished write")

// KeyGen is yb-sample-apps' SimpleLoadGenerator: writers take the next key
// number until every unique key has been written, then update random keys;
// readers read uniformly among the keys known to be written — below the
// watermark MaxWritten, under which every key was written or failed — and
// never a key whose write failed.
//
// Writers mark completions in a window of atomic slots; whoever finds the
// sweep free advances the watermark (the reference has a tracker thread
// woken per write). Failed keys go to a set under a mutex, which readers
// consult only once a write has failed.
type KeyGen struct {
	// base is the first key number of this agent's part of the key space
	// (0 unless keys are split between agents); the tracking below counts
	// from it, and the methods take and give whole key numbers.
	base         int64
	end          int64 // number of unique keys: base … base+end-1
	maxGenerated atomic.Int64
	maxWritten   atomic.Int64
	slots        []atomic.Uint32
	sweeping     atomic.Bool
	done         atomic.Bool // the watermark reached end-1: no more tracking

	failedN  atomic.Int64
	failedMu sync.RWMutex // read by every reader after a failure, written rarely
	failed   map[int64]struct{}
}

// NewKeyGen tracks uniqueKeys keys, resuming above maxWrittenKey (-1 for a
// fresh table), as --num_unique_keys and --max_written_key say.
func NewKeyGen(uniqueKeys, maxWrittenKey int64) *KeyGen {
	return NewPartKeyGen(0, uniqueKeys, maxWrittenKey)
}

// NewPartKeyGen tracks the keys base … base+keys-1, one agent's part of the
// run's key space, resuming above maxWrittenKey (a whole key number; below
// base: nothing of the part written yet).
func NewPartKeyGen(base, keys, maxWrittenKey int64) *KeyGen {
	local := max(min(maxWrittenKey-base, keys-1), -1)
	g := &KeyGen{base: base, end: keys, slots: make([]atomic.Uint32, keyWindow), failed: map[int64]struct{}{}}
	g.maxGenerated.Store(local)
	g.maxWritten.Store(local)
	if local >= keys-1 {
		g.done.Store(true)
	}
	return g
}

// MaxWritten is the watermark (the reference's maxWrittenKey), -1 while
// no key of the part is written.
func (g *KeyGen) MaxWritten() int64 { return g.whole(g.maxWritten.Load()) }

// MaxGenerated is the highest key number handed to a writer, -1 while none
// was.
func (g *KeyGen) MaxGenerated() int64 { return g.whole(g.maxGenerated.Load()) }

// whole turns a number counted from base into a key number, keeping -1.
func (g *KeyGen) whole(local int64) int64 {
	if local < 0 {
		return -1
	}
	return g.base + local
}

// Failed counts keys whose write failed.
func (g *KeyGen) Failed() int64 { return g.failedN.Load() }

// NextWrite returns the key number to write: the next new key, or once
// every unique key is written, a uniformly random one in [0, MaxWritten).
func (g *KeyGen) NextWrite(r *rand.Rand) int64 {
	if m := g.maxWritten.Load(); m != -1 && m == g.end-1 {
		if m == 0 { // one unique key: it is the only one to overwrite
			return g.base
		}
		return g.base + r.Int64N(m)
	}
	return g.base + g.maxGenerated.Add(1)
}

// NextRead returns a key number to read and true, or false when no key is
// known to be written yet.
func (g *KeyGen) NextRead(r *rand.Rand) (int64, bool) {
	m := g.maxWritten.Load()
	switch {
	case m < 0:
		return 0, false
	case m == 0:
		return g.base, true
	}
	for {
		k := g.base + r.Int64N(m)
		if g.failedN.Load() == 0 || !g.isFailed(k) {
			return k, true
		}
	}
}

func (g *KeyGen) isFailed(k int64) bool {
	g.failedMu.RLock()
	_, ok := g.failed[k]
	g.failedMu.RUnlock()
	return ok
}

// Written records a successful write of key k.
func (g *KeyGen) Written(k int64) error { return g.complete(k, slotWritten) }

// WriteFailed records a failed write of key k: it is never read.
func (g *KeyGen) WriteFailed(k int64) error {
	g.failedMu.Lock()
	g.failed[k] = struct{}{}
	g.failedMu.Unlock()
	g.failedN.Add(1)
	return g.complete(k, slotFailed)
}

func (g *KeyGen) complete(k int64, st uint32) error {
	k -= g.base
	if g.done.Load() || k <= g.maxWritten.Load() {
		return nil // an update of a key under the watermark
	}
	if k-g.maxWritten.Load() > keyWindow {
		return ErrKeyWindow
	}
	g.slots[k&(keyWindow-1)].Store(st)
	g.sweep()
	return nil
}

// sweep advances the watermark over completed keys. One writer sweeps at a
// time; one that finds the sweep busy leaves its mark, and the sweeper
// checks again after letting go, so no completion is left behind.
func (g *KeyGen) sweep() {
	for g.sweeping.CompareAndSwap(false, true) {
		m := g.maxWritten.Load()
		for !g.done.Load() {
			s := &g.slots[(m+1)&(keyWindow-1)]
			if s.Load() == slotPending {
				break
			}
			s.Store(slotPending)
			m++
			g.maxWritten.Store(m)
			if m == g.end-1 {
				g.done.Store(true) // every unique key written: tracking stops, as in the reference
			}
		}
		g.sweeping.Store(false)
		if g.done.Load() || g.slots[(g.maxWritten.Load()+1)&(keyWindow-1)].Load() == slotPending {
			return
		}
	}
}

// appendKey writes key n's text, <prefix>:<n>: the prefix is the run's
// UUID, or "key" with --nouuid.
func appendKey(dst []byte, prefix string, n int64) []byte {
	dst = append(dst[:0], prefix...)
	dst = append(dst, ':')
	return strconv.AppendInt(dst, n, 10)
}

// appendValueStr appends "val:<n>", the value (or value prefix) of key n.
func appendValueStr(dst []byte, n int64) []byte {
	dst = append(dst, "val:"...)
	return strconv.AppendInt(dst, n, 10)
}
