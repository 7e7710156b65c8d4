package hist

import (
	"bytes"
	"compress/zlib"
	"encoding/base64"
	"encoding/binary"
	"math"
	"math/bits"
	"sync"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// encoder writes a histogram a Decoder read back in the V2 compressed
// encoding, byte for byte as Encode writes the same histogram decoded
// (the counts up to the highest populated bucket, runs of empty ones
// folded, at zlib's best compression), through one zlib writer kept for
// every histogram: the library makes a writer (some 800 KB) for each.
type encoder struct {
	inner, raw, text []byte
	z                bytes.Buffer
	zw               *zlib.Writer
	// sparse, idx and cnt hold a dense histogram's populated buckets for
	// encodeDense.
	sparse *hdrhistogram.PackedHistogram
	idx    []int32
	cnt    []int64
}

// encoders are kept for Encode, which any goroutine may call.
var encoders = sync.Pool{New: func() any { return new(encoder) }}

// encodeDense returns the encoding of a dense histogram of the shared
// geometry, valid until the next encode: its populated buckets found in
// one pass over its counts.
func (e *encoder) encodeDense(h *hdrhistogram.Histogram) []byte {
	if e.sparse == nil {
		e.sparse = hdrhistogram.NewPacked(Lowest, Highest, SigFigs)
	}
	e.sparse.Reset()
	e.sparse.MergeFrom(h)
	e.idx, e.cnt = e.idx[:0], e.cnt[:0]
	for v, c := range e.sparse.ForEachBucket {
		e.idx, e.cnt = append(e.idx, indexAt(v)), append(e.cnt, c)
	}
	return e.encode(e.idx, e.cnt)
}

// indexAt is the flat counts index of a value of the shared geometry
// (valueAt's inverse).
func indexAt(v int64) int32 {
	bucket := int32(64-bits.LeadingZeros64(uint64(v)|(2*subBucketHalfCount-1))) - (subBucketHalfCountMagnitude + 1)
	return (bucket+1)<<subBucketHalfCountMagnitude + int32(v>>bucket) - subBucketHalfCount
}

// encode returns the encoding of the buckets (ascending flat indices and
// their counts, all positive), valid until the next encode.
func (e *encoder) encode(idx []int32, cnt []int64) []byte {
	e.inner = binary.BigEndian.AppendUint32(e.inner[:0], uint32(hdrhistogram.V2EncodingCookieBase|0x10))
	e.inner = binary.BigEndian.AppendUint32(e.inner, 0) // the payload's length, below
	e.inner = binary.BigEndian.AppendUint32(e.inner, 0) // normalizing index offset
	e.inner = binary.BigEndian.AppendUint32(e.inner, SigFigs)
	e.inner = binary.BigEndian.AppendUint64(e.inner, Lowest)
	e.inner = binary.BigEndian.AppendUint64(e.inner, Highest)
	e.inner = binary.BigEndian.AppendUint64(e.inner, math.Float64bits(1))
	if len(idx) == 0 {
		// An empty histogram still writes its first bucket's count.
		e.inner = appendZigzag(e.inner, 0)
	}
	var next int32
	for i, at := range idx {
		switch gap := at - next; {
		case gap == 1:
			e.inner = appendZigzag(e.inner, 0)
		case gap > 1:
			e.inner = appendZigzag(e.inner, -int64(gap))
		}
		e.inner = appendZigzag(e.inner, cnt[i])
		next = at + 1
	}
	binary.BigEndian.PutUint32(e.inner[4:], uint32(len(e.inner)-headerSize))
	e.z.Reset()
	if e.zw == nil {
		// Only an invalid level is an error.
		e.zw, _ = zlib.NewWriterLevel(&e.z, zlib.BestCompression)
	} else {
		e.zw.Reset(&e.z)
	}
	// Writes to a bytes.Buffer do not fail.
	_, _ = e.zw.Write(e.inner)
	_ = e.zw.Close()
	e.raw = binary.BigEndian.AppendUint32(e.raw[:0], uint32(hdrhistogram.V2CompressedEncodingCookieBase|0x10))
	e.raw = binary.BigEndian.AppendUint32(e.raw, uint32(e.z.Len()))
	e.raw = append(e.raw, e.z.Bytes()...)
	e.text = base64.StdEncoding.AppendEncode(e.text[:0], e.raw)
	return e.text
}

// appendZigzag appends v as zig-zag LEB128 of at most 9 bytes, the ninth
// holding 8 bits, as HdrHistogram writes counts.
func appendZigzag(b []byte, v int64) []byte {
	u := uint64(v<<1) ^ uint64(v>>63)
	for i := 0; i < 8; i++ {
		if u>>7 == 0 {
			return append(b, byte(u))
		}
		b = append(b, byte(u)|0x80)
		u >>= 7
	}
	return append(b, byte(u))
}
