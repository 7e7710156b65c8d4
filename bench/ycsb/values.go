package ycsb

import (
	"math/rand/v2"
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
// per 32-bit draw, in RandomByteIterator's layout, so they are ASCII 32–127.
func (v Value) AppendTo(dst []byte) []byte {
	if v.r == nil {
		return append(dst, v.det...)
	}
	for left := v.n; left > 0; left -= 6 {
		x := int32(v.r.Uint32())
		g := [6]byte{
			' ' + byte(x&31),
			' ' + byte((x>>5)&63),
			' ' + byte((x>>10)&95),
			' ' + byte((x>>15)&31),
			' ' + byte((x>>20)&63),
			' ' + byte((x>>25)&95),
		}
		dst = append(dst, g[:min(left, 6)]...)
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
