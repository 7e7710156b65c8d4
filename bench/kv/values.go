package kv

import (
	"bytes"
	"encoding/binary"
	"hash/adler32"
	"math/rand/v2"
	"strconv"
)

// Value layout of yb-sample-apps (AppBase.getRandomValue, spec kv §6) for
// --value_size L > 0:
//
//	[0]                    marker: 'B' binary, 'A' ASCII (--use_ascii_values)
//	[1, 1+p)               when L > 16: the first p bytes of "val:<n>", p = min(len, content-1)
//	[1+p, content)         random bytes
//	[content, L)           when L > 1+checksum size: Adler-32 of [0, content)
//
// The checksum is 4 bytes low byte first (binary) or 8 lower-case hex digits
// (ASCII); content is L minus the checksum when there is one. With
// --value_size 0 the value is the text "val:<n>".
const (
	markerBinary      = 'B'
	markerASCII       = 'A'
	checksumBinary    = 4
	checksumASCII     = 8
	prefixAboveLength = 16
)

// valueGen builds values for one worker.
type valueGen struct {
	size  int
	ascii bool
	r     *rand.Rand
	str   []byte // "val:<n>" scratch
}

// build writes the value of key n into dst (reused) and returns it.
func (g *valueGen) build(dst []byte, n int64) []byte {
	g.str = appendValueStr(g.str[:0], n)
	if g.size == 0 {
		return append(dst[:0], g.str...)
	}
	L := g.size
	if cap(dst) < L {
		dst = make([]byte, L)
	}
	v := dst[:L]
	cs := checksumBinary
	v[0] = markerBinary
	if g.ascii {
		cs, v[0] = checksumASCII, markerASCII
	}
	useChecksum := L > cs+1
	content := L
	if useChecksum {
		content = L - cs
	}
	i := 1
	if L > prefixAboveLength {
		i += copy(v[1:1+min(content-1, len(g.str))], g.str)
	}
	if g.ascii {
		// Four characters per 32-bit draw, as the reference does: the draw
		// sign-extended, then 32 + r % 95 and r /= 95 (Java's truncating
		// division), which puts a few bytes below 32 — kept for fidelity.
		for i < content {
			r := int64(int32(g.r.Uint32()))
			for k := min(4, content-i); k > 0; k-- {
				v[i] = byte(32 + r%95)
				i++
				r /= 95
			}
		}
	} else {
		// Uniform bytes, eight per draw: the reference's Random.nextBytes
		// takes four per draw from a generator we do not share anyway.
		for ; i+8 <= content; i += 8 {
			binary.LittleEndian.PutUint64(v[i:], g.r.Uint64())
		}
		if i < content {
			for r := g.r.Uint64(); i < content; i++ {
				v[i] = byte(r)
				r >>= 8
			}
		}
	}
	if useChecksum {
		sum := adler32.Checksum(v[:content])
		if g.ascii {
			hex := strconv.AppendUint(make([]byte, 0, 8), uint64(sum), 16)
			for ; i < L-len(hex); i++ {
				v[i] = '0'
			}
			copy(v[i:], hex)
		} else {
			binary.LittleEndian.PutUint32(v[content:], sum)
		}
	}
	return v
}

// Verify checks a value read back for key n as the reference does: with
// --value_size 0 it must equal "val:<n>"; otherwise the marker says binary
// or ASCII, the "val:<n>" prefix must match (values above 16 bytes) and the
// Adler-32 checksum must (values above the checksum size plus one). scratch
// is reused for "val:<n>".
func Verify(value []byte, n int64, valueSize int, scratch []byte) (ok bool, scratchOut []byte) {
	scratch = appendValueStr(scratch[:0], n)
	if valueSize == 0 {
		return bytes.Equal(value, scratch), scratch
	}
	L := len(value)
	if L == 0 {
		return false, scratch
	}
	cs := checksumBinary
	if value[0] == markerASCII {
		cs = checksumASCII
	}
	hasChecksum := L > cs+1
	if L > prefixAboveLength {
		p := L - 1
		if hasChecksum {
			p -= cs
		}
		p = min(p, len(scratch))
		if !bytes.Equal(value[1:1+p], scratch[:p]) {
			return false, scratch
		}
	}
	if hasChecksum {
		var want uint64
		if cs == checksumASCII {
			v, err := strconv.ParseUint(string(value[L-cs:]), 16, 64)
			if err != nil {
				return false, scratch
			}
			want = v
		} else {
			want = uint64(binary.LittleEndian.Uint32(value[L-cs:]))
		}
		if uint64(adler32.Checksum(value[:L-cs])) != want {
			return false, scratch
		}
	}
	return true, scratch
}
