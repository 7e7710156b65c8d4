package kv

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"testing"
)

// adler is Adler-32 written out from its definition (RFC 1950), to check
// the values against something other than the code under test.
func adler(b []byte) uint32 {
	a, s := uint32(1), uint32(0)
	for _, x := range b {
		a = (a + uint32(x)) % 65521
		s = (s + a) % 65521
	}
	return s<<16 | a
}

func TestValueLayoutBinary(t *testing.T) {
	g := valueGen{size: 256, r: rand.New(rand.NewPCG(1, 1))}
	v := g.build(nil, 12345)
	if len(v) != 256 || v[0] != 'B' {
		t.Fatalf("len %d marker %q", len(v), v[0])
	}
	if !bytes.HasPrefix(v[1:], []byte("val:12345")) {
		t.Errorf("prefix %q", v[1:12])
	}
	if got, want := binary.LittleEndian.Uint32(v[252:]), adler(v[:252]); got != want {
		t.Errorf("checksum %08x, want %08x", got, want)
	}
	// Fresh random content every time.
	if w := g.build(nil, 12345); bytes.Equal(v, w) {
		t.Error("two writes of a key got the same bytes")
	}
}

func TestValueLayoutASCII(t *testing.T) {
	g := valueGen{size: 64, ascii: true, r: rand.New(rand.NewPCG(2, 2))}
	v := g.build(nil, 7)
	if v[0] != 'A' || !bytes.HasPrefix(v[1:], []byte("val:7")) {
		t.Fatalf("head %q", v[:8])
	}
	if got, want := string(v[56:]), fmt.Sprintf("%08x", adler(v[:56])); got != want {
		t.Errorf("checksum %q, want %q", got, want)
	}
}

// Every size verifies, and corrupting any byte — marker aside — or asking
// for another key is caught wherever a prefix or checksum covers it.
func TestVerifyRoundTripAndCorruption(t *testing.T) {
	for _, ascii := range []bool{false, true} {
		for _, size := range []int{0, 1, 2, 5, 6, 9, 10, 16, 17, 20, 100, 256} {
			g := valueGen{size: size, ascii: ascii, r: rand.New(rand.NewPCG(uint64(size), 9))}
			v := append([]byte(nil), g.build(nil, 4242)...)
			if ok, _ := Verify(v, 4242, size, nil); !ok {
				t.Errorf("ascii=%v size %d: a fresh value fails verification: %q", ascii, size, v)
				continue
			}
			cs := 4
			if ascii {
				cs = 8
			}
			hasChecksum := size > cs+1
			if size == 0 || hasChecksum || size > 16 {
				if ok, _ := Verify(v, 4243, size, nil); ok && (size == 0 || size > 16) {
					t.Errorf("ascii=%v size %d: verified as another key's value", ascii, size)
				}
			}
			if hasChecksum {
				for i := 1; i < len(v); i++ {
					c := append([]byte(nil), v...)
					c[i] ^= 0x01
					if ok, _ := Verify(c, 4242, size, nil); ok {
						t.Errorf("ascii=%v size %d: byte %d flipped, still verified", ascii, size, i)
					}
				}
			}
		}
	}
	if ok, _ := Verify([]byte("val:1"), 1, 0, nil); !ok {
		t.Error("value_size 0: val:1 rejected")
	}
	if ok, _ := Verify([]byte("garbage"), 1, 256, nil); ok {
		t.Error("garbage verified")
	}
}

// The random part of a binary value takes every byte value about equally
// often, at every position modulo the draw's eight bytes, and values of
// every length up to 40 bytes (the random part's tail shorter than a draw)
// verify.
func TestBinaryValueBytesAreUniform(t *testing.T) {
	g := valueGen{size: 256, r: rand.New(rand.NewPCG(3, 4))}
	var counts [8][256]int
	const values = 4000
	var v []byte
	for n := int64(0); n < values; n++ {
		v = g.build(v, 1_000_000+n) // "val:1000xxx": 11 bytes of prefix
		for i := 12; i < 252; i++ {
			counts[(i-12)%8][v[i]]++
		}
	}
	want := float64(values*240/8) / 256 // per position class and byte value
	for pos := range counts {
		for b, c := range counts[pos] {
			if d := float64(c)/want - 1; d < -0.25 || d > 0.25 {
				t.Fatalf("byte %#x at position %d mod 8: %d times, want about %.0f", b, pos, c, want)
			}
		}
	}
	for size := 1; size <= 40; size++ {
		g := valueGen{size: size, r: rand.New(rand.NewPCG(5, uint64(size)))}
		v := g.build(nil, 42)
		if len(v) != size {
			t.Fatalf("size %d: %d bytes", size, len(v))
		}
		if ok, _ := Verify(v, 42, size, nil); !ok {
			t.Fatalf("size %d: value %q does not verify", size, v)
		}
	}
}

func BenchmarkValue256(b *testing.B) {
	g := valueGen{size: 256, r: rand.New(rand.NewPCG(1, 2))}
	var v []byte
	for n := int64(0); b.Loop(); n++ {
		v = g.build(v, n)
	}
}
