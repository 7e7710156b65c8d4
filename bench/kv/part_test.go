package kv

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// The agents' parts of a run cover each key once, in agent order, and the
// counts of the parts sum to the run's: the flags keep their meaning for
// the run as a whole.
func TestPartsCoverTheRunOnce(t *testing.T) {
	for _, c := range []struct {
		keys, writes, reads int64
		agents              int
	}{
		{1_000_000_000, -1, -1, 2}, {100_000, 2_000_000, 1_500_000, 3}, {7, 5, 1, 7}, {10, 0, 9, 4}, {5, 3, 3, 1},
	} {
		var writes, reads, setup int64
		next := int64(0)
		for i := range c.agents {
			p := PartOf(c.keys, c.writes, c.reads, c.agents, i)
			if p.KeyStart != next || p.Keys < 1 {
				t.Errorf("%+v agent %d: keys %d from %d, want from %d", c, i, p.Keys, p.KeyStart, next)
			}
			next = p.KeyStart + p.Keys
			if c.writes < 0 && p.NumWrites != -1 || c.reads < 0 && p.NumReads != -1 {
				t.Errorf("%+v agent %d: an unbounded count became %d, %d", c, i, p.NumWrites, p.NumReads)
			}
			writes, reads, setup = writes+p.NumWrites, reads+p.NumReads, setup+p.SetupKeys
		}
		if next != c.keys {
			t.Errorf("%+v: the parts end at key %d, want %d", c, next, c.keys)
		}
		if c.writes >= 0 && writes != c.writes || c.reads >= 0 && reads != c.reads {
			t.Errorf("%+v: parts write %d and read %d", c, writes, reads)
		}
		if setup != PureReadSetupKeys {
			t.Errorf("%+v: the setups write %d keys in all, want %d", c, setup, PureReadSetupKeys)
		}
	}
}

// The flags give the agent its part (worked by hand: 10 keys over 3 agents
// are 4, 3, 3), recorded nowhere when they are absent.
func TestAgentFlags(t *testing.T) {
	o, err := ParseArgs(strings.Fields("--workload CassandraKeyValue --nodes h:9042 --num_unique_keys 10 --num_writes 8 --num_reads -1 --ybload_agent_index 1 --ybload_agent_count 3"), nil)
	if err != nil {
		t.Fatal(err)
	}
	want := Part{Index: 1, Count: 3, KeyStart: 4, Keys: 3, NumWrites: 3, NumReads: -1, SetupKeys: 33_333}
	if o.Part != want || o.UniqueKeys != 10 || o.NumWrites != 8 {
		t.Errorf("part %+v (run: %d keys, %d writes), want %+v", o.Part, o.UniqueKeys, o.NumWrites, want)
	}
	o, err = ParseArgs(strings.Fields("--workload CassandraKeyValue --nodes h:9042 --num_unique_keys 10"), nil)
	if err != nil || o.Part.Split() || o.Part.Keys != 10 || o.Part.NumWrites != DefaultNumWrites {
		t.Errorf("alone: part %+v, %v", o.Part, err)
	}
	for _, c := range []struct{ args, want string }{
		{"--ybload_agent_index 1", "go together"},
		{"--ybload_agent_count 2", "go together"},
		{"--ybload_agent_index 2 --ybload_agent_count 2", "must be below --ybload_agent_count 2"},
		{"--ybload_agent_index 0 --ybload_agent_count 0", "--ybload_agent_count 0: must be at least 1"},
		{"--ybload_agent_index 0 --ybload_agent_count 4 --num_unique_keys 3", "more agents than --num_unique_keys 3"},
		{"--ybload_agent_index 0 --ybload_agent_count 2 --ybload_row_count_check", "--ybload_row_count_check with --ybload_agent_count"},
	} {
		_, err := ParseArgs(strings.Fields("--workload CassandraKeyValue --nodes h:9042 "+c.args), nil)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err %v, want %q", c.args, err, c.want)
		}
	}
}

// Two agents' key generators, each on its part, hand out disjoint keys
// that together are every key once; each reads only its own written keys,
// and once its part is written updates stay in it.
func TestPartKeyGensNeverCollide(t *testing.T) {
	const n = 11
	seen := map[int64]int{}
	r := rand.New(rand.NewPCG(3, 4))
	for i := range 2 {
		p := PartOf(n, -1, -1, 2, i)
		g := NewPartKeyGen(p.KeyStart, p.Keys, -1)
		if _, ok := g.NextRead(r); ok || g.MaxWritten() != -1 {
			t.Fatalf("agent %d: a read key before any write (watermark %d)", i, g.MaxWritten())
		}
		for range p.Keys {
			k := g.NextWrite(r)
			seen[k]++
			if err := g.Written(k); err != nil {
				t.Fatal(err)
			}
		}
		if g.MaxWritten() != p.KeyStart+p.Keys-1 {
			t.Errorf("agent %d: watermark %d, want %d", i, g.MaxWritten(), p.KeyStart+p.Keys-1)
		}
		for range 1000 {
			w := g.NextWrite(r)
			k, ok := g.NextRead(r)
			if !ok || k < p.KeyStart || k >= p.KeyStart+p.Keys || w < p.KeyStart || w >= p.KeyStart+p.Keys {
				t.Fatalf("agent %d (keys %d…%d): update %d, read %d %v", i, p.KeyStart, p.KeyStart+p.Keys-1, w, k, ok)
			}
		}
	}
	for k := int64(0); k < n; k++ {
		if seen[k] != 1 {
			t.Errorf("key %d handed out %d times", k, seen[k])
		}
	}
}

// --max_written_key is a key of the run: each agent resumes above it
// within its own part.
func TestPartKeyGenResumes(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, c := range []struct{ base, keys, maxWritten, next, watermark int64 }{
		{10, 10, 14, 15, 14}, // inside the part
		{10, 10, 5, 10, -1},  // below it: nothing of the part written
		{10, 10, 30, -1, 19}, // above it: all written, writes are updates
	} {
		g := NewPartKeyGen(c.base, c.keys, c.maxWritten)
		if g.MaxWritten() != c.watermark {
			t.Errorf("%+v: watermark %d", c, g.MaxWritten())
		}
		k := g.NextWrite(r)
		if c.next >= 0 && k != c.next || c.next < 0 && (k < c.base || k >= c.base+c.keys) {
			t.Errorf("%+v: next write %d", c, k)
		}
	}
}
