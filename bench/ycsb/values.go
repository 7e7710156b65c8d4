package ycsb

import (
	"math/rand/v2"
	"slices"
	"strconv"
)

// Value is a field value as YCSB hands it to a binding. A random value is
// lazy, like YCSB's RandomByteIterator: its bytes are generated when the
// binding reads them, inside the timed call.
type Value struct {
	n   int
	det string // deterministic value (dataintegrity), else random
	r   *rand.Rand
}

// RandomValue returns a lazy random value of length n drawn from r.
func RandomValue(n int, r *rand.Rand) Value { return Value{n: n, r: r} }

// FixedValue returns a value with fixed content.
func FixedValue(s string) Value { return Value{n: len(s), det: s} }

// Len is the value's length in bytes.
func (v Value) Len() int { return v.n }

// AppendTo appends the value's bytes to dst. Random bytes are produced six
// per 32-bit draw, in RandomByteIterator's layout, so they are ASCII 32–127
// (a 64-bit draw feeds two groups: the same bits, half the calls).
func (v Value) AppendTo(dst []byte) []byte {
	if v.r == nil {
		return append(dst, v.det...)
	}
	start := len(dst)
	dst = slices.Grow(dst, v.n)[:start+v.n]
	b := dst[start:]
	var word uint64
	for i := 0; i < len(b); i += 6 {
		if (i/6)%2 == 0 {
			word = v.r.Uint64()
		} else {
			word >>= 32
		}
		x := uint32(word)
		g := [6]byte{
			' ' + byte(x&31),
			' ' + byte((x>>5)&63),
			' ' + byte((x>>10)&95),
			' ' + byte((x>>15)&31),
			' ' + byte((x>>20)&63),
			' ' + byte((x>>25)&95),
		}
		copy(b[i:], g[:])
	}
	return dst
}

// Field is a named value of a record.
type Field struct {
	Name  string
	Value Value
}

// deterministicValue is CoreWorkload.buildDeterministicValue: key:field,
// then ":" and the Java hash of everything so far, until size, truncated.
func deterministicValue(key, field string, size int) string {
	b := make([]byte, 0, size+24)
	b = append(b, key...)
	b = append(b, ':')
	b = append(b, field...)
	for len(b) < size {
		b = append(b, ':')
		b = strconv.AppendInt(b, int64(JavaStringHash(string(b))), 10)
	}
	if len(b) > size {
		b = b[:size]
	}
	return string(b)
}
