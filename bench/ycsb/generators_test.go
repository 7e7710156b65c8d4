package ycsb

import (
	"math"
	"math/rand/v2"
	"testing"
)

// Statistical tests use a fixed seed, so they are deterministic; the
// tolerances are stated per test and are several standard errors wide.

func seeded() *rand.Rand { return rand.New(rand.NewPCG(12345, 67890)) }

func zetaN(n int64, theta float64) float64 { return zetaRange(0, n, theta, 0) }

func TestUniformIsFlat(t *testing.T) {
	r := seeded()
	g := NewUniform(10, 19)
	const n = 200_000
	var counts [10]float64
	for i := 0; i < n; i++ {
		v := g.Next(r)
		if v < 10 || v > 19 {
			t.Fatalf("value %d outside [10,19]", v)
		}
		counts[v-10]++
	}
	// Chi-square with 9 degrees of freedom: the 99.9 % critical value is 27.9.
	var chi float64
	for _, c := range counts {
		e := n / 10.0
		chi += (c - e) * (c - e) / e
	}
	if chi > 27.9 {
		t.Errorf("chi-square %.1f > 27.9: not uniform (%v)", chi, counts)
	}
}

// Zipfian: the first two ranks are exact in Gray's algorithm: P(0) = 1/ζ(n)
// and P(1) = 2^-θ/ζ(n); the rest follows the zipf CDF closely.
func TestZipfianFollowsZipfLaw(t *testing.T) {
	r := seeded()
	const items, n = 1000, 1_000_000
	g := NewZipfian(0, items-1, ZipfianConstant, 0)
	counts := make([]float64, items)
	for i := 0; i < n; i++ {
		v := g.Next(r)
		if v < 0 || v >= items {
			t.Fatalf("value %d outside [0,%d)", v, items)
		}
		counts[v]++
	}
	z := zetaN(items, ZipfianConstant)
	for rank, want := range []float64{1 / z, math.Pow(0.5, ZipfianConstant) / z} {
		got := counts[rank] / n
		// Binomial standard error is below 0.05 %; allow 0.3 % absolute.
		if math.Abs(got-want) > 0.003 {
			t.Errorf("rank %d frequency %.4f, want %.4f ±0.003", rank, got, want)
		}
	}
	// Beyond rank 1 the generator inverts Gray et al.'s approximation of the
	// zipf CDF: X <= k exactly when u < u_k = (((k+1)/n)^(1/α) + η − 1)/η.
	// The empirical CDF must match that formula closely (binomial standard
	// error under 0.05 %; allow 0.3 %), and the zipf law itself loosely (the
	// approximation is 1.6 % off at rank 9 of 1000; allow 2.5 %).
	p := g.params.Load()
	var cum float64
	for k := 0; k < items; k++ {
		cum += counts[k] / n
		if k == 9 || k == 99 || k == 499 {
			uk := (math.Pow(float64(k+1)/items, 1/g.alpha) + p.eta - 1) / p.eta
			if math.Abs(cum-uk) > 0.003 {
				t.Errorf("P(X <= %d) = %.4f, Gray's formula %.4f ±0.003", k, cum, uk)
			}
			if law := zetaN(int64(k+1), ZipfianConstant) / z; math.Abs(cum-law) > 0.025 {
				t.Errorf("P(X <= %d) = %.4f, zipf law %.4f ±0.025", k, cum, law)
			}
		}
	}
}

// The scrambled zipfian is a zipfian over 10^10 items folded by FNV: its
// most popular value is min + fnv(0) % itemcount, drawn with probability
// 1/ζ(10^10) = 1/26.469 ≈ 3.78 %.
func TestScrambledZipfianHotKey(t *testing.T) {
	r := seeded()
	const items, n = 1_000_001, 500_000
	g := NewScrambledZipfian(0, items-1)
	hot := FNVHash64(0) % items
	var hits float64
	for i := 0; i < n; i++ {
		v := g.Next(r)
		if v < 0 || v >= items {
			t.Fatalf("value %d out of range", v)
		}
		if v == hot {
			hits++
		}
	}
	want := 1 / scrambledZetan
	if got := hits / n; math.Abs(got-want) > 0.002 {
		t.Errorf("hot key frequency %.4f, want %.4f ±0.002", got, want)
	}
}

// SkewedLatest: the newest acknowledged key is the most popular, drawn with
// probability 1/ζ(max) (≈ 13 % for 1000 records, as the spec measured on
// Java), and key 0 is never chosen.
func TestSkewedLatestFavoursNewest(t *testing.T) {
	r := seeded()
	ack := NewAckCounter(1000) // Last() = 999
	g := NewSkewedLatest(ack)
	const n = 500_000
	var newest float64
	for i := 0; i < n; i++ {
		v := g.Next(r)
		if v < 1 || v > 999 {
			t.Fatalf("value %d outside [1,999]", v)
		}
		if v == 999 {
			newest++
		}
	}
	want := 1 / zetaN(999, ZipfianConstant)
	if got := newest / n; math.Abs(got-want) > 0.003 {
		t.Errorf("newest key frequency %.4f, want %.4f ±0.003", got, want)
	}
	// New acknowledged keys become the new favourite.
	for k := int64(1000); k < 1100; k++ {
		if err := ack.Acknowledge(k); err != nil {
			t.Fatal(err)
		}
	}
	var top float64
	for i := 0; i < 100_000; i++ {
		if g.Next(r) == 1099 {
			top++
		}
	}
	if top/100_000 < 0.1 {
		t.Errorf("after 100 inserts the newest key has %.3f of draws", top/100_000)
	}
}

func TestHotspotSendsHotOperationsToHotSet(t *testing.T) {
	r := seeded()
	g, warn := NewHotspot(0, 999, 0.2, 0.8)
	if len(warn) > 0 {
		t.Fatal(warn)
	}
	const n = 200_000
	var hot float64
	for i := 0; i < n; i++ {
		if v := g.Next(r); v < 200 {
			hot++
		}
	}
	// Binomial(0.8) standard error is 0.09 %; allow 0.5 %.
	if got := hot / n; math.Abs(got-0.8) > 0.005 {
		t.Errorf("hot fraction %.4f, want 0.8 ±0.005", got)
	}
	if _, warn := NewHotspot(0, 9, 1.5, 0.5); len(warn) != 1 {
		t.Errorf("an out-of-range fraction must warn, got %v", warn)
	}
}

// Exponential: a fraction percentile/100 of the draws fall below the range,
// and the mean is 1/γ.
func TestExponentialPercentile(t *testing.T) {
	r := seeded()
	const rangeV, n = 857_142.8571, 200_000
	g := NewExponential(95, rangeV)
	var below, sum float64
	for i := 0; i < n; i++ {
		v := g.Next(r)
		if v < 0 {
			t.Fatal("negative draw")
		}
		sum += float64(v)
		if float64(v) < rangeV {
			below++
		}
	}
	if got := below / n; math.Abs(got-0.95) > 0.003 {
		t.Errorf("P(X < range) = %.4f, want 0.95 ±0.003", got)
	}
	mean := rangeV / -math.Log(0.05)
	if got := sum / n; math.Abs(got-mean)/mean > 0.01 {
		t.Errorf("mean %.0f, want %.0f ±1%%", got, mean)
	}
}

func TestSequentialCycles(t *testing.T) {
	g := NewSequential(5, 7)
	var got []int64
	for i := 0; i < 7; i++ {
		got = append(got, g.Next(nil))
	}
	want := []int64{5, 6, 7, 5, 6, 7, 5} // first value is start (go-ycsb starts at start+1)
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("sequence %v, want %v", got, want)
		}
	}
}

func TestDiscreteProportionsAreNormalised(t *testing.T) {
	r := seeded()
	var d Discrete
	d.Add(1, "READ") // weights sum to 2: YCSB normalises
	d.Add(0.5, "UPDATE")
	d.Add(0.5, "SCAN")
	const n = 200_000
	var c [3]float64
	for i := 0; i < n; i++ {
		c[d.NextIndex(r)]++
	}
	for i, want := range []float64{0.5, 0.25, 0.25} {
		if got := c[i] / n; math.Abs(got-want) > 0.005 {
			t.Errorf("%s: %.4f, want %.2f ±0.005", d.Name(i), got, want)
		}
	}
}

func TestAckCounterExposesOnlyAcknowledgedKeys(t *testing.T) {
	a := NewAckCounter(100)
	if a.Last() != 99 {
		t.Fatalf("initial last %d", a.Last())
	}
	k0, k1, k2 := a.Next(nil), a.Next(nil), a.Next(nil)
	if k0 != 100 || k2 != 102 {
		t.Fatalf("keys %d %d %d", k0, k1, k2)
	}
	mustAck := func(k int64) {
		if err := a.Acknowledge(k); err != nil {
			t.Fatal(err)
		}
	}
	mustAck(k2) // out of order: 100 and 101 still pending
	if a.Last() != 99 {
		t.Errorf("last %d after acking 102 only", a.Last())
	}
	mustAck(k0)
	if a.Last() != 100 {
		t.Errorf("last %d after acking 100", a.Last())
	}
	mustAck(k1)
	if a.Last() != 102 {
		t.Errorf("last %d after acking all", a.Last())
	}
	// A slot reused while still unacknowledged: YCSB's "Too many unacknowledged insertion keys".
	b := NewAckCounter(0)
	if err := b.Acknowledge(5); err != nil {
		t.Fatal(err)
	}
	if err := b.Acknowledge(5 + ackWindow); err != ErrTooManyUnacknowledged {
		t.Errorf("err %v, want ErrTooManyUnacknowledged", err)
	}
}

func TestHistogramGenerator(t *testing.T) {
	h, err := ParseHistogram("hist.txt", "BlockSize\t10\n0\t1\n1\t3\n2\t0\n")
	if err != nil {
		t.Fatal(err)
	}
	r := seeded()
	c := map[int64]float64{}
	for i := 0; i < 100_000; i++ {
		c[h.Next(r)]++
	}
	// YCSB's loop: number in [0,4); returns 10 when number-1 <= 0 (numbers 0 and 1), else 20.
	if got := c[10] / 100_000; math.Abs(got-0.5) > 0.01 {
		t.Errorf("P(10) = %.3f, want 0.5", got)
	}
	if _, err := ParseHistogram("h.txt", "BlockSize\t10\n0\tx\n"); err == nil || err.Error() != `h.txt:2: "x" is not an integer` {
		t.Errorf("error %v", err)
	}
}

func TestFNVKeysMatchYCSBVectors(t *testing.T) {
	vectors := map[int64]string{
		0: "user6284781860667377211", 1: "user8517097267634966620", 2: "user1820151046732198393",
		3: "user4052466453699787802", 4: "user3232700585171816769", 5: "user1000385178204227360",
		999999: "user2744965632448235251",
	}
	for k, want := range vectors {
		if got := string(KeyName(nil, "user", k, 1, false)); got != want {
			t.Errorf("key %d = %s, want %s", k, got, want)
		}
	}
	if got := string(KeyName(nil, "user", 5, 1, true)); got != "user5" {
		t.Errorf("ordered 5 = %s", got)
	}
	if got := string(KeyName(nil, "user", 5, 8, true)); got != "user00000005" {
		t.Errorf("zero-padded 5 = %s", got)
	}
}
