package cassandra

import (
	"fmt"
	"math/big"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// Tokens returns the initial_token of each of n nodes (num_tokens: 1),
// evenly spaced over the Murmur3 partitioner's range [-2^63, 2^63-1]: node
// i gets the middle of the i-th of n equal slices,
//
//	token(i) = floor(2^64 × (2i+1) / 2n) − 2^63
//
// so one node gets 0, three nodes get −6148914691236517206, 0 and
// 6148914691236517205, and no node ever gets the partitioner's minimum
// token (−2^63), which Cassandra reserves for the start of the ring. It is
// a pure function; n < 1 gives nil.
func Tokens(n int) []string {
	if n < 1 {
		return nil
	}
	ring := new(big.Int).Lsh(big.NewInt(1), 64) // 2^64 tokens
	half := new(big.Int).Lsh(big.NewInt(1), 63) // 2^63: the offset of the minimum
	den := new(big.Int).Mul(big.NewInt(2), big.NewInt(int64(n)))
	out := make([]string, n)
	for i := range n {
		t := new(big.Int).Mul(ring, big.NewInt(int64(2*i+1)))
		t.Quo(t, den) // floor: both are positive
		t.Sub(t, half)
		out[i] = t.String()
	}
	return out
}

// DefaultHeap is the JVM heap of each node (-Xms = -Xmx) unless the
// setting "heap" says otherwise: small, so a 3-node cluster fits beside the
// agents on a small machine. Production-sized runs set it.
const DefaultHeap = "512M"

// yamlKey is one cassandra.yaml key a run may set through
// FlavorSpec.Settings, with the shape its value must have.
type yamlKey struct {
	kind string // int, size, duration, rate, bool, or one of enum
	min  int    // for int
	max  int    // for int
	enum []string
	doc  string
}

// yamlKeys are the cassandra.yaml keys FlavorSpec.Settings may set (see
// YAMLKeyNames), each with the form its value takes.
var yamlKeys = map[string]yamlKey{
	"concurrent_reads":             {kind: "int", min: 1, max: 1024, doc: "read threads"},
	"concurrent_writes":            {kind: "int", min: 1, max: 1024, doc: "write threads"},
	"concurrent_counter_writes":    {kind: "int", min: 1, max: 1024, doc: "counter write threads"},
	"concurrent_compactors":        {kind: "int", min: 1, max: 64, doc: "compaction threads"},
	"native_transport_max_threads": {kind: "int", min: 1, max: 4096, doc: "CQL request threads"},
	"memtable_heap_space":          {kind: "size", doc: "on-heap memtable space"},
	"memtable_offheap_space":       {kind: "size", doc: "off-heap memtable space"},
	"key_cache_size":               {kind: "size", doc: "key cache"},
	"file_cache_size":              {kind: "size", doc: "chunk cache"},
	"commitlog_segment_size":       {kind: "size", doc: "commit log segment"},
	"commitlog_total_space":        {kind: "size", doc: "commit log space"},
	"commitlog_sync_period":        {kind: "duration", doc: "periodic commit log sync"},
	"read_request_timeout":         {kind: "duration", doc: "read timeout"},
	"write_request_timeout":        {kind: "duration", doc: "write timeout"},
	"range_request_timeout":        {kind: "duration", doc: "range read timeout"},
	"compaction_throughput":        {kind: "rate", doc: "compaction throttle (0MiB/s: none)"},
	"memtable_allocation_type":     {kind: "enum", enum: []string{"heap_buffers", "offheap_buffers", "offheap_objects"}, doc: "memtable allocation"},
	"hinted_handoff_enabled":       {kind: "bool", doc: "hints for down replicas"},
}

var (
	heapRE     = regexp.MustCompile(`^[1-9][0-9]{0,5}[MmGg]$`)
	sizeRE     = regexp.MustCompile(`^[0-9]{1,9}(KiB|MiB|GiB)$`)
	durationRE = regexp.MustCompile(`^[0-9]{1,9}(ms|s|m)$`)
	rateRE     = regexp.MustCompile(`^[0-9]{1,9}(KiB|MiB)/s$`)
	javaRE     = regexp.MustCompile(`^/[A-Za-z0-9._/+-]*/java$`)
)

// settings are a run's choices, validated.
type settings struct {
	heap string
	java string            // a java binary on the hosts; "" to look for one
	yaml map[string]string // cassandra.yaml overrides, as they are written
}

// SettingKeys are the non-yaml keys of FlavorSpec.Settings:
//
//	heap   the JVM heap of each node, -Xms = -Xmx: 512M (default), 2G, …
//	java   the java binary to use on every db host (Java 11 or 17); by
//	       default the flavor looks for one and, on hosts of our own,
//	       installs openjdk-17-jre-headless
var SettingKeys = []string{"heap", "java"}

// parseSettings validates FlavorSpec.Settings. Every problem is reported
// at once, keys in order.
func parseSettings(in map[string]string) (settings, error) {
	s := settings{heap: DefaultHeap, yaml: map[string]string{}}
	keys := make([]string, 0, len(in))
	for k := range in {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var problems []string
	bad := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	for _, k := range keys {
		v := in[k]
		switch k {
		case "heap":
			if !heapRE.MatchString(v) {
				bad("heap %q: want a JVM size such as 512M or 2G", v)
				continue
			}
			if mb := heapMB(v); mb < 256 || mb > 64<<10 {
				bad("heap %q: want between 256M and 64G", v)
				continue
			}
			s.heap = strings.ToUpper(v)
		case "java":
			if !javaRE.MatchString(v) {
				bad("java %q: want the absolute path of a java binary (…/bin/java)", v)
				continue
			}
			s.java = v
		default:
			key, ok := yamlKeys[k]
			if !ok {
				bad("unknown setting %q (want %s, or one of the cassandra.yaml keys %s)", k, strings.Join(SettingKeys, ", "), strings.Join(YAMLKeyNames(), ", "))
				continue
			}
			if err := key.check(v); err != nil {
				bad("%s %q: %v", k, v, err)
				continue
			}
			s.yaml[k] = v
		}
	}
	if len(problems) > 0 {
		return settings{}, fmt.Errorf("cassandra: bad settings: %s", strings.Join(problems, "; "))
	}
	return s, nil
}

// check validates one value; what passes is safe to write into the yaml
// unquoted (digits, letters, '_' and '/').
func (k yamlKey) check(v string) error {
	switch k.kind {
	case "int":
		n, err := strconv.Atoi(v)
		if err != nil || strconv.Itoa(n) != v || n < k.min || n > k.max {
			return fmt.Errorf("want an integer from %d to %d", k.min, k.max)
		}
	case "size":
		if !sizeRE.MatchString(v) {
			return fmt.Errorf("want a size such as 64MiB or 1GiB")
		}
	case "duration":
		if !durationRE.MatchString(v) {
			return fmt.Errorf("want a duration such as 2000ms or 10s")
		}
	case "rate":
		if !rateRE.MatchString(v) {
			return fmt.Errorf("want a rate such as 64MiB/s")
		}
	case "bool":
		if v != "true" && v != "false" {
			return fmt.Errorf("want true or false")
		}
	case "enum":
		for _, e := range k.enum {
			if v == e {
				return nil
			}
		}
		return fmt.Errorf("want one of %s", strings.Join(k.enum, ", "))
	}
	return nil
}

// YAMLKeyNames are the cassandra.yaml keys FlavorSpec.Settings may set,
// sorted. Their values take Cassandra 5.0's own forms:
//
//	concurrent_reads, concurrent_writes, concurrent_counter_writes,
//	concurrent_compactors, native_transport_max_threads   integers
//	memtable_heap_space, memtable_offheap_space, key_cache_size,
//	file_cache_size, commitlog_segment_size,
//	commitlog_total_space                                  sizes: 64MiB, 1GiB
//	commitlog_sync_period, read_request_timeout,
//	write_request_timeout, range_request_timeout           durations: 10000ms, 5s
//	compaction_throughput                                  a rate: 64MiB/s
//	memtable_allocation_type                               heap_buffers, offheap_buffers, offheap_objects
//	hinted_handoff_enabled                                 true or false
//
// Every other key is refused: the flavor's own keys (addresses, ports,
// tokens, directories, seeds) are not the run's to change, and a key
// Cassandra does not know would stop the node at start.
func YAMLKeyNames() []string {
	names := make([]string, 0, len(yamlKeys))
	for k := range yamlKeys {
		names = append(names, k)
	}
	sort.Strings(names)
	return names
}

// heapMB is a validated heap size in MiB.
func heapMB(v string) int {
	n, _ := strconv.Atoi(v[:len(v)-1])
	if strings.ContainsAny(v[len(v)-1:], "Gg") {
		n <<= 10
	}
	return n
}
