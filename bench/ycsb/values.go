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
		if i+6 <= len(b) {
			// Stores straight into b: no temporary group and no copy.
			g := b[i : i+6 : i+6]
			g[0] = ' ' + byte(x&31)
			g[1] = ' ' + byte((x>>5)&63)
			g[2] = ' ' + byte((x>>10)&95)
			g[3] = ' ' + byte((x>>15)&31)
			g[4] = ' ' + byte((x>>20)&63)
			g[5] = ' ' + byte((x>>25)&95)
			continue
		}
		for j, shift := range [6]uint{0, 5, 10, 15, 20, 25} {
			if i+j == len(b) {
				break
			}
			b[i+j] = ' ' + byte((x>>shift)&[6]uint32{31, 63, 95, 31, 63, 95}[j])
		}
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
	// The hash of the whole prefix, kept running (Java's s[0]*31^(n-1) + …
	// is h = 31*h + c over the bytes appended), instead of rehashing it.
	var h int32
	hashed := 0
	for len(b) < size {
		b = append(b, ':')
		for _, c := range b[hashed:] {
			h = 31*h + int32(c)
		}
		hashed = len(b)
		b = strconv.AppendInt(b, int64(h), 10)
	}
	if len(b) > size {
		b = b[:size]
	}
	return string(b)
}
