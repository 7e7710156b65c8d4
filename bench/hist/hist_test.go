package hist

import (
	"math/rand/v2"
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
	other := hdrhistogram.New(1, 1000, 2)
	other.RecordValue(5)
	b, err := other.Encode(hdrhistogram.V2CompressedEncodingCookieBase)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Decode(string(b), 0); err == nil || !strings.Contains(err.Error(), "geometry 1..1000 µs, 2 digits") {
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
