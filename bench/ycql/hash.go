package ycql

import (
	"encoding/binary"
	"errors"
	"math"
)

// YugabyteDB partitions a YCQL table by a 16-bit hash of its partition key:
// Bob Jenkins' 64-bit hash (lookup8) of the key's bytes with seed 97, folded
// to 16 bits. The reference clients compute it to send each statement to the
// tablet that owns the key (spec ycsb §7.2, kv §7). The vectors in
// testdata/partition_hash_vectors.txt come from running the reference Java
// driver's own function (testdata/hashgen).

// partitionHashSeed is the seed YugabyteDB hashes partition keys with.
const partitionHashSeed = 97

// jenkinsGolden is the initial value of lookup8's a and b (the golden ratio).
const jenkinsGolden = 0xe08c1d668b756f82

// Jenkins64 is Bob Jenkins' 64-bit hash (lookup8) of k with the given seed:
// 24-byte blocks read as three little-endian words and mixed; the tail
// spread over the three words, the first byte of the third word holding the
// total length.
func Jenkins64(k []byte, seed uint64) uint64 {
	a, b, c := uint64(jenkinsGolden), uint64(jenkinsGolden), seed
	total := uint64(len(k))
	for len(k) >= 24 {
		a += binary.LittleEndian.Uint64(k)
		b += binary.LittleEndian.Uint64(k[8:])
		c += binary.LittleEndian.Uint64(k[16:])
		a, b, c = jenkinsMix(a, b, c)
		k = k[24:]
	}
	c += total // the whole key's length, not the tail's
	for i, x := range k {
		switch {
		case i < 8:
			a += uint64(x) << (8 * i)
		case i < 16:
			b += uint64(x) << (8 * (i - 8))
		default: // c's lowest byte holds the length
			c += uint64(x) << (8*(i-16) + 8)
		}
	}
	_, _, c = jenkinsMix(a, b, c)
	return c
}

// jenkinsMix is lookup8's mix: four rounds, each shifting c right, a left
// and b right into the next word.
func jenkinsMix(a, b, c uint64) (uint64, uint64, uint64) {
	for _, s := range [4][3]uint{{43, 9, 8}, {38, 23, 5}, {35, 49, 11}, {12, 18, 22}} {
		a -= b
		a -= c
		a ^= c >> s[0]
		b -= c
		b -= a
		b ^= a << s[1]
		c -= a
		c -= b
		c ^= b >> s[2]
	}
	return a, b, c
}

// PartitionHash is YugabyteDB's 16-bit partition hash of an encoded
// partition key: Jenkins64 with seed 97, its four 16-bit quarters combined
// as h>>48 ^ 3·(h>>32) ^ 5·(h>>16) ^ 7·(h&0xffff), masked to 16 bits.
func PartitionHash(key []byte) uint16 {
	h := Jenkins64(key, partitionHashSeed)
	return uint16((h >> 48) ^ 3*(h>>32) ^ 5*(h>>16) ^ 7*(h&0xffff))
}

// KeyType says how a partition-key column's value is encoded before it is
// hashed (YugabyteDB hashes some types in a form other than their CQL
// serialization).
type KeyType uint8

// The key encodings.
const (
	// KeyRaw hashes the CQL serialization as it is: text, varchar, ascii,
	// blob, boolean, tinyint, smallint, int, bigint, inet, uuid, timeuuid,
	// date, time.
	KeyRaw KeyType = iota
	// KeyTimestamp hashes the milliseconds as microseconds (×1000).
	KeyTimestamp
	// KeyFloat and KeyDouble hash every NaN as one canonical NaN.
	KeyFloat
	KeyDouble
	// KeyUnsupported marks a type the client does not encode (collections,
	// frozen UDTs, …): such statements are not routed by partition.
	KeyUnsupported
)

// ErrUnroutable is returned for a partition key the client cannot encode.
var ErrUnroutable = errors.New("partition key of a type the client does not hash")

// EncodeRoutingKey turns a driver routing key into the bytes YugabyteDB
// hashes: the column values concatenated, each in its hash form. A routing
// key of one column is the value itself; of several, Cassandra's composite
// form (per column: 2-byte big-endian length, value, 0). types gives each
// column's encoding; nil means one column hashed raw. dst is reused.
func EncodeRoutingKey(dst, rk []byte, types []KeyType) ([]byte, error) {
	dst = dst[:0]
	if len(types) <= 1 {
		t := KeyRaw
		if len(types) == 1 {
			t = types[0]
		}
		return appendKeyValue(dst, rk, t)
	}
	for _, t := range types {
		if len(rk) < 2 {
			return dst, errors.New("routing key shorter than its columns")
		}
		n := int(binary.BigEndian.Uint16(rk))
		if len(rk) < 2+n+1 {
			return dst, errors.New("routing key component overruns the key")
		}
		var err error
		if dst, err = appendKeyValue(dst, rk[2:2+n], t); err != nil {
			return dst, err
		}
		rk = rk[2+n+1:]
	}
	return dst, nil
}

func appendKeyValue(dst, v []byte, t KeyType) ([]byte, error) {
	switch t {
	case KeyRaw:
		return append(dst, v...), nil
	case KeyTimestamp:
		if len(v) != 8 {
			return dst, errors.New("timestamp key of bad length")
		}
		return binary.BigEndian.AppendUint64(dst, binary.BigEndian.Uint64(v)*1000), nil
	case KeyFloat:
		if len(v) == 4 && math.IsNaN(float64(math.Float32frombits(binary.BigEndian.Uint32(v)))) {
			return binary.BigEndian.AppendUint32(dst, 0xff<<23|1<<22), nil
		}
		return append(dst, v...), nil
	case KeyDouble:
		if len(v) == 8 && math.IsNaN(math.Float64frombits(binary.BigEndian.Uint64(v))) {
			return binary.BigEndian.AppendUint64(dst, 0x7ff<<52|1<<51), nil
		}
		return append(dst, v...), nil
	}
	return dst, ErrUnroutable
}
