package ycsb

import "unsafe"

// keyChunk is the size of the chunks key strings are carved from: about
// seven hundred keys of YCSB's length per allocation.
const keyChunk = 16 << 10

// keyArena turns a worker's key buffer into strings without an allocation
// per key. Each key is copied once into the current chunk and the string
// points at those bytes, which are never written again: the string is as
// immutable as one string() would have made, and a binding may keep it
// (a queued batch does) for as long as it likes; the chunk lives while any
// of its keys does.
type keyArena struct{ chunk []byte }

// str returns b's contents as a string that stays valid after b changes.
func (a *keyArena) str(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	if cap(a.chunk)-len(a.chunk) < len(b) {
		a.chunk = make([]byte, 0, max(keyChunk, len(b)))
	}
	start := len(a.chunk)
	a.chunk = append(a.chunk, b...)
	return unsafe.String(&a.chunk[start], len(b))
}
