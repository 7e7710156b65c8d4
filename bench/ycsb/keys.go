package ycsb

import (
	"encoding/binary"
	"hash/fnv"
	"math"
	"strconv"
)

// FNVHash64 is YCSB's Utils.fnvhash64: FNV-1a 64 over the eight bytes of the
// value, least significant first, then Java's Math.abs (MinInt64 stays
// negative).
func FNVHash64(v int64) int64 {
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], uint64(v))
	h := fnv.New64a()
	h.Write(b[:])
	x := int64(h.Sum64())
	if x < 0 && x != math.MinInt64 {
		x = -x
	}
	return x
}

// KeyName builds a record key as CoreWorkload.buildKeyName does: the number
// hashed unless inserts are ordered, in decimal, zero-padded to zeropadding
// digits, after the prefix ("user" in YCSB; keyprefix is an extension).
func KeyName(buf []byte, prefix string, keynum int64, zeropadding int, ordered bool) []byte {
	if !ordered {
		keynum = FNVHash64(keynum)
	}
	buf = append(buf[:0], prefix...)
	var digits [24]byte
	d := strconv.AppendInt(digits[:0], keynum, 10)
	for i := len(d); i < zeropadding; i++ {
		buf = append(buf, '0')
	}
	return append(buf, d...)
}
