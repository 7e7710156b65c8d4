package cassandra

import (
	"math"
	"math/big"
	"strings"
	"testing"
)

func TestTokensAreEvenlySpacedOverTheRing(t *testing.T) {
	if Tokens(0) != nil || Tokens(-1) != nil {
		t.Errorf("no nodes, no tokens")
	}
	if got := strings.Join(Tokens(1), " "); got != "0" {
		t.Errorf("1 node: %s, want 0", got)
	}
	if got := strings.Join(Tokens(2), " "); got != "-4611686018427387904 4611686018427387904" {
		t.Errorf("2 nodes: %s", got)
	}
	if got := strings.Join(Tokens(3), " "); got != "-6148914691236517206 0 6148914691236517205" {
		t.Errorf("3 nodes: %s", got)
	}
	ring := new(big.Int).Lsh(big.NewInt(1), 64)
	for n := 1; n <= 100; n++ {
		toks := Tokens(n)
		if len(toks) != n {
			t.Fatalf("%d nodes: %d tokens", n, len(toks))
		}
		vals := make([]*big.Int, n)
		for i, s := range toks {
			v, ok := new(big.Int).SetString(s, 10)
			if !ok || !v.IsInt64() || v.Int64() == math.MinInt64 {
				t.Fatalf("%d nodes: token %q is not a usable Murmur3 token", n, s)
			}
			vals[i] = v
		}
		// Every node owns the same share, within one token: the gaps,
		// the wrap-around one included, are floor or ceil of 2^64/n.
		step := new(big.Int).Quo(ring, big.NewInt(int64(n)))
		for i := range n {
			next := new(big.Int).Set(vals[(i+1)%n])
			if i == n-1 {
				next.Add(next, ring)
			}
			gap := next.Sub(next, vals[i])
			if d := gap.Sub(gap, step); d.Sign() < 0 || d.Cmp(big.NewInt(1)) > 0 {
				t.Errorf("%d nodes: gap after node %d is off by %s from 2^64/n", n, i, d)
			}
		}
	}
}

func TestSettingsAreChecked(t *testing.T) {
	s, err := parseSettings(nil)
	if err != nil || s.heap != DefaultHeap || s.java != "" || len(s.yaml) != 0 {
		t.Fatalf("defaults: %+v %v", s, err)
	}
	s, err = parseSettings(map[string]string{
		"heap": "2g", "java": "/usr/lib/jvm/java-11-openjdk-amd64/bin/java",
		"concurrent_writes": "64", "memtable_heap_space": "256MiB", "compaction_throughput": "0MiB/s",
		"write_request_timeout": "5000ms", "memtable_allocation_type": "offheap_objects", "hinted_handoff_enabled": "false",
	})
	if err != nil {
		t.Fatal(err)
	}
	if s.heap != "2G" || s.java == "" || s.yaml["concurrent_writes"] != "64" || len(s.yaml) != 6 {
		t.Errorf("parsed: %+v", s)
	}
	for _, c := range []struct {
		in   map[string]string
		want string
	}{
		{map[string]string{"heap": "lots"}, `heap "lots": want a JVM size`},
		{map[string]string{"heap": "128M"}, "between 256M and 64G"},
		{map[string]string{"heap": "512M; rm -rf /"}, "want a JVM size"},
		{map[string]string{"java": "java"}, "absolute path"},
		{map[string]string{"java": "/opt/java $(id)/bin/java"}, "absolute path"},
		{map[string]string{"listen_address": "0.0.0.0"}, `unknown setting "listen_address" (want heap, java, or one of the cassandra.yaml keys commitlog_segment_size,`},
		{map[string]string{"num_tokens": "16"}, `unknown setting "num_tokens"`},
		{map[string]string{"concurrent_reads": "0"}, "from 1 to 1024"},
		{map[string]string{"concurrent_reads": "032"}, "from 1 to 1024"},
		{map[string]string{"memtable_heap_space": "256MB"}, "64MiB or 1GiB"},
		{map[string]string{"write_request_timeout": "5000"}, "2000ms or 10s"},
		{map[string]string{"compaction_throughput": "64MiB"}, "64MiB/s"},
		{map[string]string{"memtable_allocation_type": "unslabbed_heap_buffers"}, "heap_buffers, offheap_buffers, offheap_objects"},
		{map[string]string{"hinted_handoff_enabled": "yes"}, "true or false"},
		{map[string]string{"key_cache_size": "8MiB\nauthenticator: x"}, "64MiB or 1GiB"},
	} {
		_, err := parseSettings(c.in)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v, want %q", c.in, err, c.want)
		}
	}
	// Every problem at once.
	_, err = parseSettings(map[string]string{"heap": "x", "colour": "red", "concurrent_reads": "-1"})
	if err == nil || strings.Count(err.Error(), ";") != 2 {
		t.Errorf("want three problems in one error: %v", err)
	}
}

// Every value a setting accepts is a plain token for the yaml.
func TestAcceptedValuesAreRawTokens(t *testing.T) {
	for k, v := range map[string]string{"concurrent_reads": "8", "key_cache_size": "0MiB", "read_request_timeout": "1m",
		"compaction_throughput": "16KiB/s", "memtable_allocation_type": "heap_buffers", "hinted_handoff_enabled": "true"} {
		if err := yamlKeys[k].check(v); err != nil || !rawToken.MatchString(v) {
			t.Errorf("%s=%s: %v", k, v, err)
		}
	}
}
