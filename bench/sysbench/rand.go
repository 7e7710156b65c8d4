package sysbench

import (
	"math"
	"math/bits"
	"math/rand/v2"
)

// rng is a worker's random source (sysbench keeps one generator per
// thread; bit-exact reproduction of its xoroshiro128+ is not needed, its
// distributions are: spec §4.1).
type rng struct{ src rand.PCG }

func newRNG(seed uint64, worker int) *rng {
	r := &rng{}
	r.src.Seed(seed, uint64(worker)*0x9e3779b97f4a7c15+0x2545f4914f6cdd1d)
	return r
}

// float returns U in [0,1) from the top 52 bits of a draw, as sysbench
// builds its uniform double (spec §4.1).
func (r *rng) float() float64 { return float64(r.src.Uint64()>>12) * 0x1p-52 }

// uniform is sysbench.rand.uniform(a, b) = a + trunc(U·(b−a+1)).
func (r *rng) uniform(a, b int64) int64 { return a + int64(r.float()*float64(b-a+1)) }

// digits fills dst with uniformly random decimal digits, twelve from each
// 64-bit draw (the leading decimal digits of a uniform fraction; the bias of
// the twelfth is below 1e-7).
func (r *rng) digits(dst []byte) {
	for len(dst) > 0 {
		x := r.src.Uint64()
		n := min(len(dst), 12)
		for i := 0; i < n; i++ {
			hi, lo := bits.Mul64(x, 10)
			dst[i] = '0' + byte(hi)
			x = lo
		}
		dst = dst[n:]
	}
}

// The string templates of c and pad: groups of eleven digits joined by '-'
// (spec §3.3): 10 groups (119 characters) and 5 groups (59).
const (
	cLen   = 119
	padLen = 59
)

// randString fills dst (119 or 59 bytes) as sysbench.rand.string does with
// the template of 11-digit groups separated by '-'.
func (r *rng) randString(dst []byte) {
	for start := 0; start < len(dst); start += 12 {
		end := min(start+11, len(dst))
		r.digits(dst[start:end])
		if end < len(dst) {
			dst[end] = '-'
		}
	}
}

// dist is sysbench.rand.default: the distribution of every row id and k
// value, chosen by --rand-type (spec §4.3).
type dist struct {
	kind  string
	iter  int     // special, gaussian (1.0.20)
	pct   float64 // special
	res   float64 // special
	power float64 // pareto: ln(h)/ln(1−h)
	theta float64 // zipfian exponent
	zipf  *zipf   // cached sampler for the last n
}

func newDist(o *Options) *dist {
	d := &dist{kind: o.RandType, iter: int(o.RandSpecIter), pct: o.RandSpecPct, res: o.RandSpecRes, theta: o.RandZipfianExp}
	d.power = math.Log(o.RandParetoH) / math.Log(1-o.RandParetoH)
	return d
}

// draw returns a value in [a, b].
func (d *dist) draw(r *rng, a, b int64) int64 {
	switch d.kind {
	case "special":
		return special(r, a, b, d.iter, d.pct, d.res)
	case "gaussian":
		return gaussian(r, a, b, d.iter)
	case "pareto":
		return a + int64(float64(b-a+1)*math.Pow(r.float(), d.power))
	case "zipfian":
		n := b - a + 1
		if d.zipf == nil || d.zipf.n != n {
			d.zipf = newZipf(n, d.theta)
		}
		return a - 1 + d.zipf.sample(r)
	}
	return r.uniform(a, b)
}

// special is sysbench 1.0.20's default distribution: with probability
// (100−res)% a bell-shaped draw over the whole range (the mean of iter
// uniforms), otherwise a uniform draw in a window of pct% of the range
// around its middle (spec §4.3).
func special(r *rng, a, b int64, iter int, pct, res float64) int64 {
	t := float64(b - a)
	u := r.float()
	if u*t*100/(100-res) < t {
		var sum float64
		for i := 0; i < iter; i++ {
			sum += r.float()
		}
		return int64(float64(a) + t*sum/float64(iter))
	}
	w := t * pct / 100
	return a + int64(u*(w+1)+t/2-t*pct/200)
}

// gaussian is sysbench 1.0.20's gaussian: a + trunc(mean of iter uniforms ×
// (b−a+1)). (The fork's is broken and refused, see Options.)
func gaussian(r *rng, a, b int64, iter int) int64 {
	var sum float64
	for i := 0; i < iter; i++ {
		sum += r.float() * float64(b-a+1)
	}
	return a + int64(sum/float64(iter))
}

// zipf samples k in [1, n] with P(k) ∝ k^−θ by rejection-inversion
// (Hörmann and Derflinger, "Rejection-inversion to generate variates from
// monotone discrete distributions", 1996), which works for any θ ≥ 0 —
// math/rand's Zipf needs θ > 1 and sysbench's default is 0.8.
type zipf struct {
	n                     int64
	theta                 float64
	hX1, hN, s            float64 // H(1.5)−1, H(n+0.5), the squeeze bound
	oneMinusTheta, negExp float64
}

func newZipf(n int64, theta float64) *zipf {
	z := &zipf{n: n, theta: theta, oneMinusTheta: 1 - theta, negExp: -theta}
	z.hX1 = z.bigH(1.5) - 1
	z.hN = z.bigH(float64(n) + 0.5)
	z.s = 2 - z.bigHInv(z.bigH(2.5)-z.h(2))
	return z
}

// h is the unnormalised density x^−θ.
func (z *zipf) h(x float64) float64 { return math.Exp(z.negExp * math.Log(x)) }

// bigH is an antiderivative of h: (x^(1−θ) − 1)/(1−θ), or ln x when θ = 1,
// computed without cancellation near θ = 1.
func (z *zipf) bigH(x float64) float64 {
	lx := math.Log(x)
	return expm1OverX(z.oneMinusTheta*lx) * lx
}

// bigHInv is the inverse of bigH.
func (z *zipf) bigHInv(x float64) float64 {
	t := x * z.oneMinusTheta
	if t < -1 {
		t = -1 // rounding guard: the inverse is only defined above −1
	}
	return math.Exp(log1pOverX(t) * x)
}

func (z *zipf) sample(r *rng) int64 {
	for {
		u := z.hN + r.float()*(z.hX1-z.hN)
		x := z.bigHInv(u)
		k := int64(x + 0.5)
		if k < 1 {
			k = 1
		} else if k > z.n {
			k = z.n
		}
		kf := float64(k)
		if kf-x <= z.s || u >= z.bigH(kf+0.5)-z.h(kf) {
			return k
		}
	}
}

// expm1OverX is (e^x − 1)/x, 1 at 0.
func expm1OverX(x float64) float64 {
	if math.Abs(x) > 1e-8 {
		return math.Expm1(x) / x
	}
	return 1 + x/2*(1+x/3*(1+x/4))
}

// log1pOverX is ln(1+x)/x, 1 at 0.
func log1pOverX(x float64) float64 {
	if math.Abs(x) > 1e-8 {
		return math.Log1p(x) / x
	}
	return 1 - x*(1.0/2-x*(1.0/3-x/4))
}

// uniqueSeq is sysbench.rand.unique(): distinct 32-bit values for
// oltp_insert's explicit ids. sysbench scrambles one process-wide counter;
// here each worker walks its own residue class of the counter (index =
// start + worker + k·threads), so workers share nothing and the values stay
// distinct across the run (spec §4.6).
type uniqueSeq struct {
	next, step uint32
	offset     uint32
}

func newUniqueSeq(seed uint64, worker, threads int) *uniqueSeq {
	s := rand.New(rand.NewPCG(seed, 0x756e69717565))
	start, offset := s.Uint32(), s.Uint32()
	return &uniqueSeq{next: start + uint32(worker), step: uint32(threads), offset: offset}
}

// value returns the next distinct value, shifted into the signed 32-bit range
// as oltp_insert does (unique() − 2^31).
func (u *uniqueSeq) value() int64 {
	i := u.next
	u.next += u.step
	return int64(scramble(i, u.offset)) - (1 << 31)
}

// scramble is a bijection of the 32-bit integers: a quadratic-residue
// permutation modulo the prime 4294967291 (which is one-to-one on the
// numbers below p because p ≡ 3 mod 4), applied twice around an offset and
// an xor.
func scramble(i, offset uint32) uint32 {
	return qpr((qpr(i) + offset) ^ 0x5bf03635)
}

func qpr(x uint32) uint32 {
	const p = 4294967291
	if x >= p {
		return x // the five values above the prime map to themselves
	}
	r := uint32(uint64(x) * uint64(x) % p)
	if x <= p/2 {
		return r
	}
	return p - r
}
