package hist

import (
	"bytes"
	"compress/zlib"
	"encoding/base64"
	"encoding/binary"
	"io"
	"math"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// The shared geometry's bucket layout (hdrhistogram's own arithmetic for
// 1 µs to 1 h at three digits): 2048 sub-buckets, the lower half of each
// bucket after the first shared with the one before, 22 buckets.
const (
	subBucketHalfCountMagnitude = 10
	subBucketHalfCount          = 1 << subBucketHalfCountMagnitude
	countsLen                   = 23 * subBucketHalfCount
	headerSize                  = hdrhistogram.ENCODING_HEADER_SIZE
)

// Decoder reads encoded histograms one after another, as DecodeSparse
// reads each, reusing its buffers and one zlib reader: the library's
// decoder makes a zlib reader (some 40 KB) for every histogram, and a
// reader of every tick of a run decodes hundreds of thousands. The zero
// value is not usable; call NewDecoder. A Decoder is not safe for
// concurrent use.
type Decoder struct {
	text, raw, inner []byte
	header           [headerSize]byte
	src              bytes.Reader
	zr               io.ReadCloser
	// idx and cnt are the populated buckets of the last histogram read by
	// the decoder itself (canonical set), ascending.
	idx       []int32
	cnt       []int64
	canonical bool
	sp        Sparse
}

// NewDecoder returns a decoder.
func NewDecoder() *Decoder { return &Decoder{sp: *NewSparse()} }

// Decode reads a histogram written by Encode, with its overflow count,
// exactly as DecodeSparse does. The histogram it returns is the decoder's
// own, valid until the next Decode. An encoding of the shared geometry
// that an agent writes is read here; anything else (another geometry, a
// conversion ratio, a malformed stream) is left to DecodeSparse, which
// reads it or says why not.
func (d *Decoder) Decode(s string, overflow int64) (*Sparse, error) {
	if d.read(s) {
		d.canonical = true
		d.sp.overflow, d.sp.idx, d.sp.cnt, d.sp.lazy = overflow, d.idx, d.cnt, true
		return &d.sp, nil
	}
	d.canonical = false
	return DecodeSparse(s, overflow)
}

// read inflates the encoding into inner and lists its populated buckets,
// refusing anything but an agent's shared geometry read whole.
func (d *Decoder) read(s string) bool {
	d.text = append(d.text[:0], s...)
	n := base64.StdEncoding.DecodedLen(len(d.text))
	if cap(d.raw) < n {
		d.raw = make([]byte, n)
	}
	m, err := base64.StdEncoding.Decode(d.raw[:n], d.text)
	if err != nil || m < 8 {
		return false
	}
	raw := d.raw[:m]
	clen := int32(binary.BigEndian.Uint32(raw[4:]))
	if int32(binary.BigEndian.Uint32(raw))&^0xf0 != hdrhistogram.V2CompressedEncodingCookieBase || clen < 0 || int(clen) > m-8 {
		return false
	}
	d.src.Reset(raw[8 : 8+clen])
	if !d.inflate() {
		return false
	}
	h := d.header[:]
	if _, err := io.ReadFull(d.zr, h); err != nil {
		return false
	}
	payload := int32(binary.BigEndian.Uint32(h[4:]))
	if int32(binary.BigEndian.Uint32(h))&^0xf0 != hdrhistogram.V2EncodingCookieBase || payload < 0 || int64(payload) > countsLen*9 ||
		int32(binary.BigEndian.Uint32(h[12:])) != SigFigs || int64(binary.BigEndian.Uint64(h[16:])) > Lowest ||
		int64(binary.BigEndian.Uint64(h[24:])) != Highest || binary.BigEndian.Uint64(h[32:]) != math.Float64bits(1) {
		return false
	}
	if cap(d.inner) < int(payload)+1 {
		d.inner = make([]byte, int(payload)+1)
	}
	// One byte past the payload: the stream must end there, and reaching
	// its end checks its checksum.
	got, err := io.ReadFull(d.zr, d.inner[:payload+1])
	if got != int(payload) || (err != io.ErrUnexpectedEOF && err != io.EOF) {
		return false
	}
	return d.buckets(d.inner[:payload])
}

// inflate points the zlib reader at src, making it the first time.
func (d *Decoder) inflate() bool {
	if d.zr == nil {
		zr, err := zlib.NewReader(&d.src)
		if err != nil {
			return false
		}
		d.zr = zr
		return true
	}
	return d.zr.(zlib.Resetter).Reset(&d.src, nil) == nil
}

// buckets lists the payload's populated buckets: zig-zag LEB128 counts,
// a negative one a run of empty buckets. Counts whose sum passes MaxInt64
// are left to the library (whose sparse form saturates the total).
func (d *Decoder) buckets(p []byte) bool {
	d.idx, d.cnt = d.idx[:0], d.cnt[:0]
	var at, total int64
	for pos := 0; pos < len(p); {
		v, n, ok := zigzag(p[pos:])
		if !ok {
			return false
		}
		pos += n
		if v < 0 {
			if -v <= 0 || -v > countsLen-at {
				return false
			}
			at += -v
			continue
		}
		if at >= countsLen {
			return false
		}
		if v > 0 {
			if v > math.MaxInt64-total {
				return false
			}
			total += v
			d.idx, d.cnt = append(d.idx, int32(at)), append(d.cnt, v)
		}
		at++
	}
	return true
}

// valueAt is the lowest value of the bucket at a flat counts index.
func valueAt(at int32) int64 {
	bucket := at>>subBucketHalfCountMagnitude - 1
	sub := at&(subBucketHalfCount-1) + subBucketHalfCount
	if bucket < 0 {
		sub -= subBucketHalfCount
		bucket = 0
	}
	return int64(sub) << bucket
}

// highestAt is the highest value of the bucket at a flat counts index:
// its lowest plus its width (1 in the first 2048 buckets, doubling with
// each bucket after) less one.
func highestAt(at int32) int64 {
	bucket := max(at>>subBucketHalfCountMagnitude-1, 0)
	return valueAt(at) + 1<<bucket - 1
}

// zigzag reads one zig-zag LEB128 value of at most 9 bytes (the ninth
// holds 8 bits), as HdrHistogram writes them; false when p ends first.
func zigzag(p []byte) (int64, int, bool) {
	var u uint64
	for i := 0; i < 9 && i < len(p); i++ {
		if i == 8 {
			u |= uint64(p[i]) << 56
		} else {
			u |= uint64(p[i]&0x7f) << (7 * i)
			if p[i]&0x80 != 0 {
				continue
			}
		}
		return int64(u>>1) ^ -int64(u&1), i + 1, true
	}
	return 0, 0, false
}
