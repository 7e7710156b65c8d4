package hist

import (
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// Merging two histograms must give exactly the histogram of the union of
// their values: every percentile identical, not merely close.
func TestMergeIsExact(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	a, b, all := New(), New(), New()
	for i := 0; i < 200_000; i++ {
		v := int64(r.ExpFloat64() * 800)
		if i%3 == 0 {
			v *= 40 // a slower agent
			b.Record(v)
		} else {
			a.Record(v)
		}
		all.Record(v)
	}
	m := New()
	m.Merge(a)
	m.Merge(b)
	if m.Count() != all.Count() {
		t.Fatalf("count %d, want %d", m.Count(), all.Count())
	}
	for _, p := range []float64{0, 1, 50, 90, 95, 99, 99.9, 99.99, 100} {
		if got, want := m.Percentile(p), all.Percentile(p); got != want {
			t.Errorf("p%v = %d, want %d", p, got, want)
		}
	}
	if m.Mean() != all.Mean() || m.Min() != all.Min() || m.Max() != all.Max() {
		t.Errorf("mean/min/max %v/%d/%d, want %v/%d/%d", m.Mean(), m.Min(), m.Max(), all.Mean(), all.Min(), all.Max())
	}
}

// Encoding and decoding must preserve every count, so records from several
// agents merge as if recorded in one place.
func TestEncodeDecodeRoundTrip(t *testing.T) {
	h := New()
	for v := int64(0); v < 100_000; v += 7 {
		h.Record(v)
	}
	h.Record(Highest * 2) // overflow
	s, err := h.Encode()
	if err != nil {
		t.Fatal(err)
	}
	d, err := Decode(s, h.Overflow())
	if err != nil {
		t.Fatal(err)
	}
	if d.Count() != h.Count() || d.Overflow() != 1 {
		t.Fatalf("count %d overflow %d, want %d and 1", d.Count(), d.Overflow(), h.Count())
	}
	for _, p := range []float64{0, 25, 50, 99, 100} {
		if d.Percentile(p) != h.Percentile(p) {
			t.Errorf("p%v: %d != %d", p, d.Percentile(p), h.Percentile(p))
		}
	}
}

func TestOverflowClampsToMaximum(t *testing.T) {
	h := New()
	h.Record(Highest + 1)
	h.Record(-5)
	if h.Overflow() != 1 || h.Count() != 2 {
		t.Fatalf("overflow %d count %d", h.Overflow(), h.Count())
	}
	if !h.Equivalent(h.Max(), Highest) {
		t.Errorf("max %d not equivalent to %d", h.Max(), Highest)
	}
	if h.Min() != 0 {
		t.Errorf("min %d, want 0 for a recorded zero", h.Min())
	}
}

// Percentiles must agree with the exact percentile of the raw samples within
// HDR precision (three significant digits), using the same rank rule.
func TestPercentileMatchesRawWithinPrecision(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	h := New()
	raw := make([]int64, 0, 50_000)
	for i := 0; i < 50_000; i++ {
		v := int64(r.NormFloat64()*300 + 2000)
		if v < 1 {
			v = 1
		}
		raw = append(raw, v)
		h.Record(v)
	}
	slices.Sort(raw)
	for _, p := range []float64{50, 95, 99, 99.9} {
		rank := int(p/100*float64(len(raw)) + 0.5)
		exact := raw[rank-1]
		got := h.Percentile(p)
		if !h.Equivalent(got, exact) {
			t.Errorf("p%v = %d, raw %d: not within HDR precision", p, got, exact)
		}
	}
}

// A histogram of another geometry (another agent's build, another tool)
// would merge inexactly: it is refused by name; garbage is refused too.
func TestDecodeRefusesOtherGeometry(t *testing.T) {
	if _, err := Decode("not base64!", 0); err == nil {
		t.Fatal("want error for garbage")
	}
	if _, err := Decode(otherGeometry(t), 0); err == nil || !strings.Contains(err.Error(), "geometry 1..1000 µs, 2 digits") {
		t.Fatalf("other geometry: %v", err)
	}
	x := New()
	x.Record(5)
	enc, err := x.Encode()
	if err != nil {
		t.Fatal(err)
	}
	if y, err := Decode(enc, 0); err != nil || y.Count() != 1 {
		t.Fatalf("own geometry: %v", err)
	}
}

// Stats agrees with the values it summarises: 1..10000 µs recorded once each
// have known order statistics, which must hold within HDR precision.
func TestStatsOfKnownValues(t *testing.T) {
	x := New()
	for v := int64(1); v <= 10000; v++ {
		x.Record(v)
	}
	s := x.Stats()
	for _, c := range []struct {
		name      string
		got, want int64
	}{{"min", s.MinUS, 1}, {"p50", s.P50US, 5000}, {"p95", s.P95US, 9500}, {"p99", s.P99US, 9900},
		{"p99.9", s.P999US, 9990}, {"max", s.MaxUS, 10000}} {
		if !x.Equivalent(c.got, c.want) {
			t.Errorf("%s = %d, want %d within HDR precision", c.name, c.got, c.want)
		}
	}
	if s.MeanUS < 5000.5*0.999 || s.MeanUS > 5000.5*1.001 {
		t.Errorf("mean = %.2f, want 5000.5 within 0.1 %%", s.MeanUS)
	}
	if z := New().Stats(); z != (Stats{}) {
		t.Errorf("empty histogram: %+v, want zeros", z)
	}
}

// MergeEncoded gives exactly what Decode then Merge gives — every bucket's
// count, the overflow, min, max and mean — for histograms of several shapes,
// merged several at a time; a wider geometry of the same digits (what a Java
// writer with a larger range would send) merges too.
func TestMergeEncodedIsDecodeThenMerge(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	var encs []string
	var overflows []int64
	for k := 0; k < 6; k++ {
		h := New()
		for i := 0; i < 5000*(k+1); i++ {
			h.Record(int64(r.ExpFloat64() * float64(300*(k+1))))
		}
		if k == 2 {
			h.RecordN(Highest*3, 4) // overflow
		}
		if k == 4 {
			h.Reset() // an empty tick
		}
		s, err := h.Encode()
		if err != nil {
			t.Fatal(err)
		}
		encs, overflows = append(encs, s), append(overflows, h.Overflow())
	}
	wide := hdrhistogram.New(1, 10*Highest, SigFigs)
	for v := int64(1); v < 3_000_000; v += 997 {
		wide.RecordValue(v)
	}
	b, err := wide.Encode(hdrhistogram.V2CompressedEncodingCookieBase)
	if err != nil {
		t.Fatal(err)
	}
	encs, overflows = append(encs, string(b)), append(overflows, 0)

	want, got := New(), New()
	for i, s := range encs {
		d, err := Decode(s, overflows[i])
		if err != nil {
			t.Fatal(err)
		}
		want.Merge(d)
		if err := got.MergeEncoded(s, overflows[i]); err != nil {
			t.Fatal(err)
		}
	}
	if !got.h.Equals(want.h) || got.Overflow() != want.Overflow() || got.Overflow() != 4 {
		t.Fatalf("count %d overflow %d, want %d and %d (4)", got.Count(), got.Overflow(), want.Count(), want.Overflow())
	}
	if got.Min() != want.Min() || got.Max() != want.Max() || got.Mean() != want.Mean() {
		t.Errorf("min/max/mean %d/%d/%v, want %d/%d/%v", got.Min(), got.Max(), got.Mean(), want.Min(), want.Max(), want.Mean())
	}
	for _, p := range []float64{0, 50, 99, 99.99, 100} {
		if got.Percentile(p) != want.Percentile(p) {
			t.Errorf("p%v: %d, want %d", p, got.Percentile(p), want.Percentile(p))
		}
	}
}

// otherGeometry is a histogram of 1..1000 µs at two digits, encoded by the
// library: one that would not merge exactly into the shared geometry.
func otherGeometry(t *testing.T) string {
	t.Helper()
	other := hdrhistogram.New(1, 1000, 2)
	other.RecordValue(5)
	b, err := other.Encode(hdrhistogram.V2CompressedEncodingCookieBase)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestMergeEncodedRefusesOtherGeometry(t *testing.T) {
	x := New()
	if err := x.MergeEncoded("not base64!", 0); err == nil {
		t.Fatal("want error for garbage")
	}
	if err := x.MergeEncoded(otherGeometry(t), 3); err == nil || !strings.Contains(err.Error(), "geometry 1..1000 µs, 2 digits") {
		t.Fatalf("other geometry: %v", err)
	}
	if x.Count() != 0 || x.Overflow() != 0 {
		t.Fatalf("a refused histogram changed the target: count %d overflow %d", x.Count(), x.Overflow())
	}
}

// MergeEncoded makes no dense histogram: it allocates less than one takes
// (what Decode allocates for every tick's histogram, whatever it holds).
func TestMergeEncodedAllocatesLittle(t *testing.T) {
	h := New()
	for v := int64(100); v < 20_000; v += 3 {
		h.Record(v)
	}
	s, err := h.Encode()
	if err != nil {
		t.Fatal(err)
	}
	dst := New()
	bytesOf := func(f func()) uint64 {
		var a, b runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&a)
		for i := 0; i < 20; i++ {
			f()
		}
		runtime.ReadMemStats(&b)
		return (b.TotalAlloc - a.TotalAlloc) / 20
	}
	merged := bytesOf(func() { dst.MergeEncoded(s, 0) })
	decoded := bytesOf(func() { d, _ := Decode(s, 0); dst.Merge(d) })
	dense := uint64(New().h.ByteSize())
	if merged >= dense || merged >= decoded {
		t.Errorf("MergeEncoded allocates %d bytes a histogram, Decode and Merge %d: want less than one dense histogram (%d)", merged, decoded, dense)
	}
	t.Logf("bytes allocated per histogram: MergeEncoded %d, Decode+Merge %d, a dense histogram %d", merged, decoded, dense)
}
