package ssh

import "time"

// Backoff is the wait between connection attempts: Initial after the
// first failure, multiplied by Multiplier after each further one, never
// more than Max. There is no jitter: hosts of one run are few, and a fixed
// schedule keeps the attempt count of a run explainable.
type Backoff struct {
	Initial    time.Duration
	Max        time.Duration
	Multiplier float64
}

// DefaultBackoff waits 250 ms, 500 ms, 1 s, 2 s, 4 s, then 5 s between
// attempts.
var DefaultBackoff = Backoff{Initial: 250 * time.Millisecond, Max: 5 * time.Second, Multiplier: 2}

// Delay is the wait after the n-th failed attempt (n ≥ 1).
func (b Backoff) Delay(n int) time.Duration {
	if n < 1 {
		n = 1
	}
	mult := b.Multiplier
	if mult < 1 {
		mult = 1
	}
	d := float64(b.Initial)
	for i := 1; i < n; i++ {
		d *= mult
		if b.Max > 0 && d >= float64(b.Max) {
			return b.Max
		}
	}
	if b.Max > 0 && d > float64(b.Max) {
		return b.Max
	}
	return time.Duration(d)
}
