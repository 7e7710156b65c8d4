package kv

import "github.com/ybbench/ybbench/bench/agentutil"

// Part is one agent's share of a key-value run that several agents drive
// together (--ybload_agent_index, --ybload_agent_count): yb-sample-apps has
// one process per run, so its counts are the run's, and each agent takes
// its part of each, the parts summing to the whole. Keys are split into
// disjoint ranges, so that no two agents write the same key and each
// reads only keys it wrote.
type Part struct {
	Index, Count int
	// KeyStart and Keys are the agent's keys: KeyStart … KeyStart+Keys-1.
	KeyStart, Keys int64
	// NumWrites and NumReads are the agent's (-1: until --run_time).
	NumWrites, NumReads int64
	// SetupKeys are the keys the agent's read-only setup writes, the first
	// of its range.
	SetupKeys int64
}

// PartOf is agent i's part of k agents' run of uniqueKeys keys,
// numWrites writes and numReads reads (-1: unbounded, for every agent).
func PartOf(uniqueKeys, numWrites, numReads int64, k, i int) Part {
	p := Part{Index: i, Count: k}
	p.KeyStart, p.Keys = agentutil.Share(uniqueKeys, k, i)
	share := func(n int64) int64 {
		if n < 0 {
			return n
		}
		_, c := agentutil.Share(n, k, i)
		return c
	}
	p.NumWrites, p.NumReads = share(numWrites), share(numReads)
	p.SetupKeys = share(PureReadSetupKeys)
	return p
}

// Split reports whether the run is shared with other agents.
func (p Part) Split() bool { return p.Count > 1 }
