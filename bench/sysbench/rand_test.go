package sysbench

import (
	"math"
	"regexp"
	"testing"
)

// Draws use fixed seeds, so every figure below is reproducible; the
// tolerances are those a correct formula meets at these sample sizes
// (several standard errors), stated per test.

const draws = 200_000

func fraction(n int, in func(int64) bool, draw func() int64) float64 {
	hit := 0
	for i := 0; i < n; i++ {
		if in(draw()) {
			hit++
		}
	}
	return float64(hit) / float64(n)
}

func distFor(t *testing.T, args ...string) (*dist, *rng) {
	t.Helper()
	o := parse(t, append([]string{"oltp_read_write", "run"}, args...)...)
	return newDist(o), newRNG(42, 0)
}

// Spec §13.9: special draws on [1,100000] put ≈76% in [49750, 50501] and
// nothing outside ≈[15500, 85500]. (Standard error ≈ 0.1%: ±0.5%.)
func TestSpecialDistribution(t *testing.T) {
	d, r := distFor(t, "--compat=1.0.20")
	lo, hi := int64(math.MaxInt64), int64(0)
	f := fraction(draws, func(v int64) bool { return v >= 49750 && v <= 50501 }, func() int64 {
		v := d.draw(r, 1, 100000)
		lo, hi = min(lo, v), max(hi, v)
		return v
	})
	if math.Abs(f-0.7596) > 0.005 {
		t.Errorf("special: %.4f of draws in [49750, 50501], want 0.7596 ±0.005", f)
	}
	// The bell part is the mean of 12 uniforms: below 15500 (or above
	// 85500) with probability 1.86^12/12! ≈ 3.6e-6 per bell draw, below
	// 10000 with 1.2^12/12! ≈ 2e-8. The spec's 10^6 draws spanned
	// [15533, 85414].
	if lo < 10000 || hi > 90000 {
		t.Errorf("special: draws span [%d, %d], want inside [10000, 90000]", lo, hi)
	}
	out := fraction(draws, func(v int64) bool { return v < 15500 || v > 85500 }, func() int64 { return d.draw(r, 1, 100000) })
	if out > 1e-4 {
		t.Errorf("special: %.6f of draws outside [15500, 85500], want below 1e-4", out)
	}
}

// Uniform: the same window holds its share (752/100000); every value is in
// range and the mean is the middle.
func TestUniformDistribution(t *testing.T) {
	d, r := distFor(t)
	var sum float64
	f := fraction(draws, func(v int64) bool { return v >= 49750 && v <= 50501 }, func() int64 {
		v := d.draw(r, 1, 100000)
		if v < 1 || v > 100000 {
			t.Fatalf("uniform draw %d out of [1, 100000]", v)
		}
		sum += float64(v)
		return v
	})
	if math.Abs(f-0.00752) > 0.001 { // standard error 0.0002
		t.Errorf("uniform: %.5f in the window, want 0.00752 ±0.001", f)
	}
	if mean := sum / draws; math.Abs(mean-50000.5) > 300 { // standard error 65
		t.Errorf("uniform mean %.0f, want 50000 ±300", mean)
	}
}

// Pareto with h = 0.2: P(id in the lowest x of the range) = x^(1/p),
// p = ln h / ln(1−h): 52.8% in the lowest 1%, 80% in the lowest 20%.
func TestParetoDistribution(t *testing.T) {
	d, r := distFor(t)
	d.kind = "pareto"
	for _, c := range []struct {
		upTo int64
		want float64
	}{{1000, 0.528}, {20000, 0.800}} {
		f := fraction(draws, func(v int64) bool { return v <= c.upTo }, func() int64 { return d.draw(r, 1, 100000) })
		if math.Abs(f-c.want) > 0.005 {
			t.Errorf("pareto: %.4f of draws ≤ %d, want %.3f ±0.005", f, c.upTo, c.want)
		}
	}
}

// Zipfian with θ = 0.8 against the exact distribution P(k) ∝ k^−θ (the
// spec observed 33.9% in the lowest 1% and 69.8% in the lowest 20%).
func TestZipfianDistribution(t *testing.T) {
	d, r := distFor(t)
	d.kind = "zipfian"
	const n = 100000
	var total, p1, p20 float64
	for k := 1; k <= n; k++ {
		w := math.Pow(float64(k), -0.8)
		total += w
		if k <= 1000 {
			p1 += w
		}
		if k <= 20000 {
			p20 += w
		}
	}
	for _, c := range []struct {
		upTo int64
		want float64
	}{{1000, p1 / total}, {20000, p20 / total}, {1, 1 / total}} {
		f := fraction(draws, func(v int64) bool { return v <= c.upTo }, func() int64 {
			v := d.draw(r, 1, n)
			if v < 1 || v > n {
				t.Fatalf("zipfian draw %d out of range", v)
			}
			return v
		})
		if tol := 5 * math.Sqrt(c.want*(1-c.want)/draws); math.Abs(f-c.want) > tol {
			t.Errorf("zipfian: %.4f of draws ≤ %d, want %.4f ±%.4f", f, c.upTo, c.want, tol)
		}
	}
	if math.Abs(p1/total-0.339) > 0.005 || math.Abs(p20/total-0.698) > 0.005 {
		t.Errorf("exact zipfian shares %.3f and %.3f disagree with the spec's 0.339 and 0.698", p1/total, p20/total)
	}
}

// 1.0.20's gaussian: the mean of 12 uniforms scaled to the range: mean at
// the middle, standard deviation (b−a+1)/12.
func TestGaussianDistribution(t *testing.T) {
	d, r := distFor(t, "--compat=1.0.20", "--rand-type=gaussian")
	var s, ss float64
	for i := 0; i < draws; i++ {
		v := float64(d.draw(r, 1, 100000))
		s += v
		ss += v * v
	}
	mean := s / draws
	sd := math.Sqrt(ss/draws - mean*mean)
	if math.Abs(mean-50000) > 100 || math.Abs(sd-100000.0/12) > 100 {
		t.Errorf("gaussian mean %.0f sd %.0f, want 50000 and %.0f (±100)", mean, sd, 100000.0/12)
	}
}

func TestTableDrawIsUniformOverTables(t *testing.T) {
	r := newRNG(1, 0)
	seen := map[int64]int{}
	for i := 0; i < 10000; i++ {
		v := r.uniform(1, 10)
		if v < 1 || v > 10 {
			t.Fatalf("table %d out of range", v)
		}
		seen[v]++
	}
	for tb := int64(1); tb <= 10; tb++ {
		if seen[tb] < 850 || seen[tb] > 1150 { // mean 1000, sd 30
			t.Errorf("table %d drawn %d times of 10000", tb, seen[tb])
		}
	}
}

func TestRandomStrings(t *testing.T) {
	r := newRNG(3, 0)
	cRe := regexp.MustCompile(`^[0-9]{11}(-[0-9]{11}){9}$`)
	padRe := regexp.MustCompile(`^[0-9]{11}(-[0-9]{11}){4}$`)
	c, pad := make([]byte, cLen), make([]byte, padLen)
	var digits [10]int
	for i := 0; i < 2000; i++ {
		r.randString(c)
		r.randString(pad)
		if !cRe.Match(c) || !padRe.Match(pad) {
			t.Fatalf("bad strings %q %q", c, pad)
		}
		for _, ch := range c {
			if ch != '-' {
				digits[ch-'0']++
			}
		}
	}
	// 220000 digits: each 22000 expected, standard deviation 141.
	for dg, n := range digits {
		if n < 21300 || n > 22700 {
			t.Errorf("digit %d appears %d times, want 22000 ±700", dg, n)
		}
	}
}

// unique(): distinct values across workers, in the signed 32-bit range.
func TestUniqueValuesAreDistinct(t *testing.T) {
	seen := map[int64]bool{}
	for w := 0; w < 4; w++ {
		u := newUniqueSeq(9, w, 4)
		for i := 0; i < 25000; i++ {
			v := u.value()
			if v < math.MinInt32 || v > math.MaxInt32 {
				t.Fatalf("value %d outside int32", v)
			}
			if seen[v] {
				t.Fatalf("value %d repeated", v)
			}
			seen[v] = true
		}
	}
	// The permutation is one-to-one on a whole block of inputs, including
	// those above the prime.
	out := map[uint32]bool{}
	for i := uint32(math.MaxUint32 - 100000); ; i++ {
		out[scramble(i, 12345)] = true
		if i == math.MaxUint32 {
			break
		}
	}
	if len(out) != 100001 {
		t.Errorf("scramble maps 100001 inputs to %d outputs", len(out))
	}
}
