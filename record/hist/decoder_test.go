package hist

import (
	"bytes"
	"encoding/base64"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// encodings are histograms of many shapes as agents and other writers
// encode them: empty, one bucket, the lowest and highest buckets, wide
// spreads, counts that need every varint length, the overflow bucket, a
// wider geometry, another geometry and a conversion ratio (both left to
// the library), and garbage.
func encodings(t *testing.T) []string {
	t.Helper()
	r := rand.New(rand.NewPCG(5, 6))
	var out []string
	add := func(h *Hist) {
		s, err := h.Encode()
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	add(New())
	for _, v := range []int64{0, 1, 1023, 1024, 2047, 2048, 4095, 123_456, Highest, Highest * 5} {
		h := New()
		h.Record(v)
		add(h)
	}
	for k := 0; k < 40; k++ {
		h := New()
		for i := 0; i < 1+r.IntN(3000); i++ {
			h.RecordN(int64(r.ExpFloat64()*float64(1+r.IntN(50_000))), 1+r.Int64N(int64(1)<<(r.IntN(8)*8)))
		}
		add(h)
	}
	big := New()
	big.RecordN(7, 1<<62)
	big.RecordN(70_000, 1<<40)
	add(big)
	for _, g := range []struct {
		highest int64
		sig     int
	}{{10 * Highest, SigFigs}, {1000, 2}} {
		o := hdrhistogram.New(1, g.highest, g.sig)
		for v := int64(1); v < 900; v += 7 {
			o.RecordValue(v)
		}
		b, err := o.Encode(hdrhistogram.V2CompressedEncodingCookieBase)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, string(b))
	}
	ratio := hdrhistogram.Import(&hdrhistogram.Snapshot{LowestTrackableValue: 1, HighestTrackableValue: Highest, SignificantFigures: SigFigs,
		Counts: []int64{0, 3, 0, 0, 5}, IntegerToDoubleConversionRatio: 0.5})
	b, err := ratio.Encode(hdrhistogram.V2CompressedEncodingCookieBase)
	if err != nil {
		t.Fatal(err)
	}
	out = append(out, string(b))
	valid := out[len(out)/2]
	raw, _ := base64.StdEncoding.DecodeString(valid)
	for _, cut := range []int{0, 4, 8, 12, len(raw) - 4, len(raw) - 1} {
		out = append(out, base64.StdEncoding.EncodeToString(raw[:cut]))
	}
	flipped := bytes.Clone(raw)
	flipped[len(flipped)-2] ^= 0x40
	return append(out, base64.StdEncoding.EncodeToString(flipped), "not base64!", "")
}

// The Decoder reads every encoding as DecodeSparse does: the same error,
// or a histogram whose merge into a dense one, and into a sparse one,
// gives every bucket DecodeSparse's gives. One decoder reads them all in
// turn, so that nothing of one histogram leaks into the next.
func TestDecoderIsDecodeSparse(t *testing.T) {
	d := NewDecoder()
	canonical := 0
	for i, s := range encodings(t) {
		got, gerr := d.Decode(s, int64(i))
		want, werr := DecodeSparse(s, int64(i))
		if (gerr == nil) != (werr == nil) || (gerr != nil && gerr.Error() != werr.Error()) {
			t.Fatalf("encoding %d: error %v, want %v", i, gerr, werr)
		}
		if gerr != nil {
			continue
		}
		if d.canonical {
			canonical++
		}
		g, w := New(), New()
		g.MergeSparse(got)
		w.MergeSparse(want)
		gs, ws := NewSparse(), NewSparse()
		gs.Merge(got)
		ws.Merge(want)
		if !g.h.Equals(w.h) || g.Overflow() != w.Overflow() || gs.Count() != ws.Count() || gs.overflow != ws.overflow {
			t.Fatalf("encoding %d: count %d overflow %d, want %d and %d", i, g.Count(), g.Overflow(), w.Count(), w.Overflow())
		}
		for _, p := range []float64{0, 50, 99, 99.9, 100} {
			if a, b, c := gs.Percentile(p), ws.Percentile(p), w.Percentile(p); a != b || a != c {
				t.Fatalf("encoding %d: p%v %d (sparse of the library's: %d, dense: %d)", i, p, a, b, c)
			}
		}
	}
	if canonical < 50 {
		t.Fatalf("the decoder read %d encodings itself, want the agents' (over 50)", canonical)
	}
}

// AddEncoded writes every line byte for byte as Add writes the histogram
// Decode reads, whether the decoder reads the encoding itself or leaves
// it to the library; an encoding Decode refuses is refused alike.
func TestAddEncodedIsDecodeThenAdd(t *testing.T) {
	start := time.Date(2026, 1, 2, 3, 4, 5, 600_000_000, time.UTC)
	var got, want bytes.Buffer
	gl, err := NewIntervalLog(&got, start, "test")
	if err != nil {
		t.Fatal(err)
	}
	wl, err := NewIntervalLog(&want, start, "test")
	if err != nil {
		t.Fatal(err)
	}
	for i, s := range encodings(t) {
		from := start.Add(time.Duration(i) * 1001 * time.Millisecond)
		to := from.Add(999 * time.Millisecond)
		gerr := gl.AddEncoded("READ", from, to, s, int64(i))
		h, werr := Decode(s, int64(i))
		if werr == nil {
			werr = wl.Add("READ", from, to, h)
		}
		if (gerr == nil) != (werr == nil) || (gerr != nil && gerr.Error() != werr.Error()) {
			t.Fatalf("encoding %d: error %v, want %v", i, gerr, werr)
		}
	}
	if err := gl.AddEncoded("READ", start.Add(-time.Second), start, encodings(t)[3], 0); err == nil {
		t.Error("an interval before the base time was written")
	}
	if err := gl.AddEncoded("READ MODIFY", start, start, encodings(t)[3], 0); err == nil {
		t.Error("a tag with a space was written")
	}
	if !bytes.Equal(got.Bytes(), want.Bytes()) {
		t.Fatalf("AddEncoded wrote\n%s\nAdd\n%s", got.Bytes(), want.Bytes())
	}
}

// The decoder's bucket layout is the library's for the shared geometry:
// every flat index's value maps back to that index, and the last index
// holds Highest.
func TestDecoderLayoutIsTheLibrarys(t *testing.T) {
	p := hdrhistogram.NewPacked(Lowest, Highest, SigFigs)
	for at := int32(0); at < countsLen; at++ {
		p.Reset()
		if err := p.RecordValues(valueAt(at), 1); err != nil {
			t.Fatalf("index %d: %v", at, err)
		}
		p.ForEachBucket(func(v, _ int64) bool {
			if v != valueAt(at) {
				t.Fatalf("index %d: value %d, the library's %d", at, valueAt(at), v)
			}
			return false
		})
	}
	for at := int32(0); at < countsLen; at++ {
		p.Reset()
		if err := p.RecordValues(valueAt(at), 1); err != nil {
			t.Fatal(err)
		}
		if p.Max() != highestAt(at) {
			t.Fatalf("index %d: highest value %d, the library's %d", at, highestAt(at), p.Max())
		}
	}
	if err := p.RecordValues(valueAt(countsLen-1)*2, 1); err == nil {
		t.Fatal("a value past the last index was recorded: the layout has more buckets")
	}
	if err := p.RecordValues(Highest, 1); err != nil {
		t.Fatalf("Highest is past the layout: %v", err)
	}
	if got := New().h.ByteSize() - 68; got != countsLen*8 {
		t.Fatalf("a dense histogram holds %d counts, the decoder assumes %d", got/8, countsLen)
	}
}

// A decoder reading tick after tick allocates next to nothing: no zlib
// reader, no buffers, no dense histogram per histogram (the one
// allocation is the zlib reader's checksum, which its Reset makes anew).
func TestDecoderAllocatesNothingPerHistogram(t *testing.T) {
	h := New()
	for v := int64(100); v < 20_000; v += 3 {
		h.Record(v)
	}
	s, err := h.Encode()
	if err != nil {
		t.Fatal(err)
	}
	d := NewDecoder()
	dst := New()
	if n := testing.AllocsPerRun(50, func() {
		sp, err := d.Decode(s, 0)
		if err != nil {
			t.Fatal(err)
		}
		dst.MergeSparse(sp)
	}); n > 1 {
		t.Errorf("%v allocations a histogram, want at most 1", n)
	}
	var out bytes.Buffer
	l, err := NewIntervalLog(&out, time.Unix(0, 0), "test")
	if err != nil {
		t.Fatal(err)
	}
	if n := testing.AllocsPerRun(50, func() {
		out.Reset()
		if err := l.AddEncoded("READ", time.Unix(1, 0), time.Unix(2, 0), s, 0); err != nil {
			t.Fatal(err)
		}
	}); n > 1 {
		t.Errorf("AddEncoded: %v allocations a line, want at most 1", n)
	}
}

// Encode writes every histogram byte for byte as the library's encoder
// does, one encoder after another reused.
func TestEncodeIsTheLibrarys(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	var hs []*Hist
	hs = append(hs, New())
	for _, v := range []int64{0, 1, 1023, 1024, 2047, 2048, 4095, 123_456, Highest, Highest * 5} {
		h := New()
		h.Record(v)
		hs = append(hs, h)
	}
	for k := 0; k < 60; k++ {
		h := New()
		for i := 0; i < 1+r.IntN(3000); i++ {
			h.RecordN(int64(r.ExpFloat64()*float64(1+r.IntN(50_000))), 1+r.Int64N(int64(1)<<(r.IntN(8)*8)))
		}
		hs = append(hs, h)
	}
	big := New()
	big.RecordN(7, 1<<62)
	big.RecordN(70_000, 1<<40)
	hs = append(hs, big)
	for i, h := range hs {
		got, err := h.Encode()
		if err != nil {
			t.Fatal(err)
		}
		want, err := h.h.Encode(hdrhistogram.V2CompressedEncodingCookieBase)
		if err != nil {
			t.Fatal(err)
		}
		if got != string(want) {
			t.Fatalf("histogram %d: encoded\n%s\nthe library\n%s", i, got, want)
		}
	}
	for at := int32(0); at < countsLen; at++ {
		if indexAt(valueAt(at)) != at {
			t.Fatalf("index %d: value %d maps back to %d", at, valueAt(at), indexAt(valueAt(at)))
		}
	}
}

// Counts adds decoded histograms up, and empties, as a dense histogram
// does: every percentile of every sum the same, whether the histograms
// are the decoder's own or the library's (a wider geometry among them).
func TestCountsIsADenseHistogram(t *testing.T) {
	encs := encodings(t)
	d := NewDecoder()
	var c Counts
	r := rand.New(rand.NewPCG(9, 10))
	for round := 0; round < 40; round++ {
		c.Reset()
		want := New()
		for k := 0; k < 1+r.IntN(12); k++ {
			s := encs[r.IntN(len(encs))]
			sp, err := d.Decode(s, 0)
			if err != nil {
				continue
			}
			c.Merge(sp)
			want.MergeSparse(sp)
		}
		if c.Count() != want.Count() {
			t.Fatalf("round %d: count %d, want %d", round, c.Count(), want.Count())
		}
		for _, p := range []float64{-1, 0, 0.1, 25, 50, 90, 99, 99.9, 99.999, 100, 101, math.NaN()} {
			if got, w := c.Percentile(p), want.Percentile(p); got != w {
				t.Fatalf("round %d: p%v %d, want %d", round, p, got, w)
			}
		}
	}
}
