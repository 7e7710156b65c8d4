package ycsb

import (
	"bufio"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
)

// A Generator draws numbers as YCSB's generators do (site.ycsb.generator).
// Generators are shared by all workers, as YCSB's are; the randomness comes
// from the calling worker's own source, so no lock is taken for it.
type Generator interface {
	Next(r *rand.Rand) int64
}

// javaAbsLong is Math.abs of a uniformly drawn Java long: a 63-bit uniform
// value (Java's abs(Long.MIN_VALUE) quirk has probability 2^-64).
func javaAbsLong(r *rand.Rand) int64 { return int64(r.Uint64() >> 1) }

// Counter hands out consecutive numbers from a start (CounterGenerator).
type Counter struct{ next atomic.Int64 }

// NewCounter starts at start.
func NewCounter(start int64) *Counter { c := &Counter{}; c.next.Store(start); return c }

// Next returns the next number; the randomness is not used.
func (c *Counter) Next(*rand.Rand) int64 { return c.next.Add(1) - 1 }

// Last is the last number handed out.
func (c *Counter) Last() int64 { return c.next.Load() - 1 }

// ackWindow is AcknowledgedCounterGenerator's window: 2^20 slots.
const ackWindow = 1 << 20

// ErrTooManyUnacknowledged is YCSB's failure when more than a window of
// inserts are in flight unacknowledged.
var ErrTooManyUnacknowledged = errors.New("too many unacknowledged insertion keys")

// AckCounter is AcknowledgedCounterGenerator: Next hands out insert key
// numbers; Last only exposes numbers whose inserts have all completed
// (been acknowledged), so readers never choose a key not yet written.
type AckCounter struct {
	Counter
	window []atomic.Bool
	limit  atomic.Int64
	mu     sync.Mutex
}

// NewAckCounter starts at start; Last is start-1 until start is acknowledged.
func NewAckCounter(start int64) *AckCounter {
	a := &AckCounter{window: make([]atomic.Bool, ackWindow)}
	a.next.Store(start)
	a.limit.Store(start - 1)
	return a
}

// Last returns the highest number below which every number is acknowledged.
func (a *AckCounter) Last() int64 { return a.limit.Load() }

// Acknowledge marks v's insert complete. The acknowledger that gets the lock
// sweeps the window forward; one that does not leaves its mark for the next.
func (a *AckCounter) Acknowledge(v int64) error {
	slot := v & (ackWindow - 1)
	if !a.window[slot].CompareAndSwap(false, true) {
		return ErrTooManyUnacknowledged
	}
	if !a.mu.TryLock() {
		return nil
	}
	defer a.mu.Unlock()
	limit := a.limit.Load()
	index := limit + 1
	for n := 0; n < ackWindow; n++ {
		s := index & (ackWindow - 1)
		if !a.window[s].Load() {
			break
		}
		a.window[s].Store(false)
		index++
	}
	a.limit.Store(index - 1)
	return nil
}

// Uniform is UniformLongGenerator: lb + abs(nextLong) % (ub-lb+1).
type Uniform struct{ lb, interval int64 }

// NewUniform draws from [lb, ub].
func NewUniform(lb, ub int64) *Uniform { return &Uniform{lb: lb, interval: ub - lb + 1} }

// Next draws one value.
func (u *Uniform) Next(r *rand.Rand) int64 { return u.lb + javaAbsLong(r)%u.interval }

// Constant is ConstantIntegerGenerator.
type Constant int64

// Next returns the constant.
func (c Constant) Next(*rand.Rand) int64 { return int64(c) }

// ZipfianConstant is YCSB's θ.
const ZipfianConstant = 0.99

// Zipfian is ZipfianGenerator (Gray et al., SIGMOD 1994), with YCSB's
// incremental ζ when the item count grows (used by SkewedLatest).
type Zipfian struct {
	items, base       int64
	theta, alpha      float64
	zeta2theta, halfP float64 // ζ(2,θ) and 0.5^θ
	params            atomic.Pointer[zipfParams]
	mu                sync.Mutex
}

type zipfParams struct {
	countForZeta int64
	zetan, eta   float64
}

// zetaRange adds Σ_{i=st..n-1} 1/(i+1)^θ to initial, as YCSB's zetastatic.
func zetaRange(st, n int64, theta, initial float64) float64 {
	sum := initial
	for i := st; i < n; i++ {
		sum += 1 / math.Pow(float64(i+1), theta)
	}
	return sum
}

// NewZipfian draws from [min, max] with constant θ; zetan is ζ(items, θ) if
// known (0 computes it, an O(items) loop).
func NewZipfian(min, max int64, theta, zetan float64) *Zipfian {
	z := &Zipfian{items: max - min + 1, base: min, theta: theta}
	z.zeta2theta = zetaRange(0, 2, theta, 0)
	z.alpha = 1 / (1 - theta)
	z.halfP = math.Pow(0.5, theta)
	if zetan == 0 {
		zetan = zetaRange(0, z.items, theta, 0)
	}
	z.params.Store(&zipfParams{countForZeta: z.items, zetan: zetan, eta: z.eta(zetan)})
	return z
}

// eta uses the constructor's item count even after ζ grows, as YCSB does.
func (z *Zipfian) eta(zetan float64) float64 {
	return (1 - math.Pow(2.0/float64(z.items), 1-z.theta)) / (1 - z.zeta2theta/zetan)
}

// NextLong draws with itemcount items (YCSB nextLong(itemcount)).
func (z *Zipfian) NextLong(r *rand.Rand, itemcount int64) int64 {
	p := z.params.Load()
	if itemcount > p.countForZeta {
		z.mu.Lock()
		if p = z.params.Load(); itemcount > p.countForZeta {
			zetan := zetaRange(p.countForZeta, itemcount, z.theta, p.zetan)
			p = &zipfParams{countForZeta: itemcount, zetan: zetan, eta: z.eta(zetan)}
			z.params.Store(p)
		}
		z.mu.Unlock()
	}
	u := r.Float64()
	uz := u * p.zetan
	if uz < 1.0 {
		return z.base
	}
	if uz < 1.0+z.halfP {
		return z.base + 1
	}
	return z.base + int64(float64(itemcount)*zipfPow(p.eta*u-p.eta+1, z.alpha))
}

// zipfPow is x^alpha for a Zipfian draw, as exp(alpha·ln x). YCSB's
// Math.pow is within an ulp of the exact power; no Go form is bit for bit
// the same, and this one is the nearer and the cheaper: against 120-bit
// results over 100 000 draws of the scrambled Zipfian (θ 0.99, α ≈ 100),
// math.Pow was up to 65 ulps off and 74 ns a call, exp∘ln up to 28 ulps
// and 26 ns. Where the two truncate to different keys (11 in 20 million
// draws), exp∘ln's is the correctly rounded power's
// (testdata/zipfpow, TestZipfPowIsNearTheExactPower).
func zipfPow(x, alpha float64) float64 { return math.Exp(alpha * math.Log(x)) }

// Next draws with the constructor's item count.
func (z *Zipfian) Next(r *rand.Rand) int64 { return z.NextLong(r, z.items) }

// ScrambledZipfian constants (ScrambledZipfianGenerator).
const (
	scrambledItemCount = 10_000_000_000
	scrambledZetan     = 26.46902820178302
)

// ScrambledZipfian is ScrambledZipfianGenerator: a zipfian over 10^10 items
// folded onto the requested range by FNV hashing, so popular items are
// scattered over the key space.
type ScrambledZipfian struct {
	min, itemcount int64
	gen            *Zipfian
}

// NewScrambledZipfian draws from [min, max] with θ = 0.99.
func NewScrambledZipfian(min, max int64) *ScrambledZipfian {
	// YCSB builds ZipfianGenerator(0, ITEM_COUNT, θ, ZETAN): ITEM_COUNT+1 items.
	return &ScrambledZipfian{min: min, itemcount: max - min + 1, gen: NewZipfian(0, scrambledItemCount, ZipfianConstant, scrambledZetan)}
}

// Next draws one value.
func (s *ScrambledZipfian) Next(r *rand.Rand) int64 {
	return s.min + FNVHash64(s.gen.Next(r))%s.itemcount
}

// SkewedLatest is SkewedLatestGenerator: recent acknowledged inserts are the
// most popular; key 0 is never chosen.
type SkewedLatest struct {
	basis *AckCounter
	zipf  *Zipfian
}

// NewSkewedLatest builds the generator over basis (ζ over basis.Last() items
// is computed here).
func NewSkewedLatest(basis *AckCounter) *SkewedLatest {
	// ZipfianGenerator(items) = ZipfianGenerator(0, items-1).
	return &SkewedLatest{basis: basis, zipf: NewZipfian(0, basis.Last()-1, ZipfianConstant, 0)}
}

// Next draws one value.
func (s *SkewedLatest) Next(r *rand.Rand) int64 {
	max := s.basis.Last()
	return max - s.zipf.NextLong(r, max)
}

// Hotspot is HotspotIntegerGenerator: a fraction of operations goes to a
// fraction of the items (the lowest numbers).
type Hotspot struct {
	lb, hotInterval, coldInterval int64
	hotOpn                        float64
}

// NewHotspot validates the fractions as YCSB does (out of [0,1] becomes 0.0,
// with a warning returned) and swaps reversed bounds.
func NewHotspot(lb, ub int64, hotData, hotOpn float64) (*Hotspot, []string) {
	var warn []string
	if hotData < 0 || hotData > 1 {
		warn = append(warn, fmt.Sprintf("Hotset fraction out of range. Setting to 0.0"))
		hotData = 0
	}
	if hotOpn < 0 || hotOpn > 1 {
		warn = append(warn, fmt.Sprintf("Hot operation fraction out of range. Setting to 0.0"))
		hotOpn = 0
	}
	if lb > ub {
		warn = append(warn, "Upper bound of Hotspot generator smaller than the lower bound. Swapping the values.")
		lb, ub = ub, lb
	}
	interval := ub - lb + 1
	hot := int64(float64(interval) * hotData)
	return &Hotspot{lb: lb, hotInterval: hot, coldInterval: interval - hot, hotOpn: hotOpn}, warn
}

// Next draws one value.
func (h *Hotspot) Next(r *rand.Rand) int64 {
	if r.Float64() < h.hotOpn {
		return h.lb + javaAbsLong(r)%h.hotInterval
	}
	return h.lb + h.hotInterval + javaAbsLong(r)%h.coldInterval
}

// Exponential is ExponentialGenerator: a fraction percentile/100 of the
// draws fall below rangeV.
type Exponential struct{ gamma float64 }

// NewExponential builds the generator.
func NewExponential(percentile, rangeV float64) *Exponential {
	return &Exponential{gamma: -math.Log(1.0-percentile/100.0) / rangeV}
}

// Next draws one value as YCSB's callers take it, Double.intValue():
// truncated toward zero, and saturated at 2³¹ − 1 (a draw past it, or of
// a uniform 0, is int's largest, never a wrapped negative key).
func (e *Exponential) Next(r *rand.Rand) int64 {
	return int64(JavaIntOfDouble(-math.Log(r.Float64()) / e.gamma))
}

// Sequential is SequentialGenerator: start, start+1, …, end, start, … shared
// by all workers.
type Sequential struct {
	start, interval int64
	counter         atomic.Int64
}

// NewSequential cycles over [start, end].
func NewSequential(start, end int64) *Sequential {
	return &Sequential{start: start, interval: end - start + 1}
}

// Next returns the next value of the cycle.
func (s *Sequential) Next(*rand.Rand) int64 {
	return s.start + (s.counter.Add(1)-1)%s.interval
}

// Discrete is DiscreteGenerator: chooses a name by weight, in the order the
// names were added; weights need not sum to 1.
type Discrete struct {
	names   []string
	weights []float64
	sum     float64
}

// Add appends a choice (YCSB adds only positive weights; so does the caller).
func (d *Discrete) Add(weight float64, name string) {
	d.names = append(d.names, name)
	d.weights = append(d.weights, weight)
	d.sum += weight
}

// Len is the number of choices.
func (d *Discrete) Len() int { return len(d.names) }

// NextIndex returns the index of the chosen name, walking the choices with
// one uniform draw as YCSB does.
func (d *Discrete) NextIndex(r *rand.Rand) int {
	val := r.Float64()
	for i, w := range d.weights {
		pw := w / d.sum
		if val < pw {
			return i
		}
		val -= pw
	}
	// Floating-point leftovers: YCSB would assert; the last choice is the
	// only one the draw can belong to.
	return len(d.weights) - 1
}

// Name returns the name at index i.
func (d *Discrete) Name(i int) string { return d.names[i] }

// HistogramGen is HistogramGenerator: draws a field length from a histogram
// file ("BlockSize<TAB>n", then "bucket<TAB>count" lines).
type HistogramGen struct {
	blockSize int64
	buckets   []int64
	area      int64
}

// ParseHistogram reads a histogram file; name is used in errors.
func ParseHistogram(name string, text string) (*HistogramGen, error) {
	sc := bufio.NewScanner(strings.NewReader(text))
	h := &HistogramGen{}
	line := 0
	for sc.Scan() {
		line++
		f := strings.Split(sc.Text(), "\t")
		if len(f) != 2 {
			return nil, fmt.Errorf("%s:%d: want two tab-separated fields", name, line)
		}
		v, err := strconv.ParseInt(strings.TrimSpace(f[1]), 10, 64)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %q is not an integer", name, line, f[1])
		}
		if line == 1 {
			if f[0] != "BlockSize" {
				return nil, fmt.Errorf("%s:1: first line must be BlockSize<TAB>n", name)
			}
			h.blockSize = v
			continue
		}
		h.buckets = append(h.buckets, v)
		h.area += v
	}
	if h.area <= 0 {
		return nil, fmt.Errorf("%s: the histogram is empty", name)
	}
	return h, nil
}

// Next draws one value.
func (h *HistogramGen) Next(r *rand.Rand) int64 {
	number := r.Int64N(h.area)
	var i int
	for i = 0; i < len(h.buckets)-1; i++ {
		number -= h.buckets[i]
		if number <= 0 {
			return int64(i+1) * h.blockSize
		}
	}
	return int64(i) * h.blockSize
}
