package agentutil

// Share divides n units over k agents as evenly as possible and returns
// agent i's part: its first unit and how many it has. The parts are
// disjoint, in agent order, and sum to n, so that agents given the same n
// and k and each its own i cover every unit exactly once.
func Share(n int64, k, i int) (start, count int64) {
	per, rem := n/int64(k), n%int64(k)
	start = int64(i)*per + min(int64(i), rem)
	count = per
	if int64(i) < rem {
		count++
	}
	return start, count
}
