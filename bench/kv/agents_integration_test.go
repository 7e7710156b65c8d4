//go:build integration

package kv

import (
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/gocql/gocql"
)

// runAgents runs one `ybload kv` per agent at once, agent i given args
// plus --ybload_agent_index i --ybload_agent_count n.
func runAgents(t *testing.T, n int, args ...string) []*result {
	t.Helper()
	dirs, out := make([]string, n), make([]*result, n)
	var wg sync.WaitGroup
	for i := range n {
		dirs[i] = t.TempDir()
		a := append(append([]string(nil), args...), "--ybload_agent_index", strconv.Itoa(i), "--ybload_agent_count", strconv.Itoa(n),
			"--ybload_agent", "agent-"+strconv.Itoa(i))
		wg.Go(func() { out[i] = execKV(dirs[i], a) })
	}
	wg.Wait()
	for i, r := range out {
		readKV(t, dirs[i], r)
		if r.code != 0 || r.summary == nil {
			t.Fatalf("agent %d: exit %d\n%s", i, r.code, r.stderr)
		}
	}
	return out
}

// keysByRange counts the table's keys (key:<n>) in each agent's part of a
// run of uniqueKeys keys over len(counts) agents, failing on a key outside
// every part.
func keysByRange(t *testing.T, s *gocql.Session, ks string, uniqueKeys int64, agents int) []int64 {
	t.Helper()
	counts := make([]int64, agents)
	iter := s.Query("SELECT k FROM " + ks + ".cassandrakeyvalue").PageSize(5000).Iter()
	var k string
	for iter.Scan(&k) {
		n, err := strconv.ParseInt(strings.TrimPrefix(k, "key:"), 10, 64)
		if err != nil || n < 0 || n >= uniqueKeys {
			t.Fatalf("key %q: not one of the run's %d keys", k, uniqueKeys)
		}
		for i := range agents {
			if p := PartOf(uniqueKeys, -1, -1, agents, i); n >= p.KeyStart && n < p.KeyStart+p.Keys {
				counts[i]++
			}
		}
	}
	if err := iter.Close(); err != nil {
		t.Fatal(err)
	}
	return counts
}

// Two agents write one run's keys at once, one key or a batch of 25 at a
// time: no key is written twice (the table holds as many rows as the
// agents wrote keys), each agent's keys are in its own half of the key
// space, and --num_writes is the run's.
func TestIntegrationKVTwoAgentsWriteDisjointKeys(t *testing.T) {
	nodes, s := node(t)
	const uniqueKeys, numWrites, writers = 1_000_000, 2000, 3
	for _, c := range []struct {
		workload string
		batch    int64
	}{{WorkloadKV, 1}, {WorkloadBatchKV, 25}} {
		ks := ownKeyspace(t, s)
		args := []string{"--workload", c.workload, "--nodes", nodes, "--nouuid", "--value_size", "32",
			"--num_threads_read", "0", "--num_threads_write", strconv.Itoa(writers), "--num_unique_keys", strconv.Itoa(uniqueKeys),
			"--num_writes", strconv.Itoa(numWrites), "--ybload_keyspace", ks}
		if c.batch > 1 {
			args = append(args, "--batch_size", strconv.FormatInt(c.batch, 10))
		}
		rs := runAgents(t, 2, args...)
		inTable := keysByRange(t, s, ks, uniqueKeys, 2)
		var total int64
		for i, r := range rs {
			written := r.summary.Counters["keys_written"]
			total += written
			// Each agent writes its half of --num_writes, a writer checking
			// the limit before each write: at most one write (batch) per
			// other writer more.
			if written < numWrites/2 || written > numWrites/2+(writers-1)*c.batch {
				t.Errorf("%s agent %d wrote %d keys, want its half of --num_writes %d", c.workload, i, written, numWrites)
			}
			if inTable[i] != written {
				t.Errorf("%s agent %d reports %d keys written, its part of the table holds %d", c.workload, i, written, inTable[i])
			}
			want := []string{"0-499999", "500000-999999"}[i]
			if got := r.summary.Settings["kv.agent_keys"]; got != want || r.summary.Settings["kv.agent"] != strconv.Itoa(i)+" of 2" {
				t.Errorf("%s agent %d: settings kv.agent %q, kv.agent_keys %q, want %q", c.workload, i, r.summary.Settings["kv.agent"], got, want)
			}
		}
		if n := count(t, s, ks); n != total {
			t.Errorf("%s: the table holds %d rows; the agents wrote %d keys", c.workload, n, total)
		}
	}
}

// Two agents of a read-only run: the pure-read setup writes the 100,000
// keys once in all (each agent its half, in its own part), and every read
// finds its key with the value written: no verification failure, no
// missing row.
func TestIntegrationKVTwoAgentsReadOnlyWrittenKeys(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 100,000 keys")
	}
	nodes, s := node(t)
	ks := ownKeyspace(t, s)
	const uniqueKeys, numReads = 1_000_000, 4000
	rs := runAgents(t, 2, "--workload", "CassandraKeyValue", "--nodes", nodes, "--nouuid", "--num_threads_read", "2",
		"--num_threads_write", "0", "--num_unique_keys", strconv.Itoa(uniqueKeys), "--num_reads", strconv.Itoa(numReads), "--ybload_keyspace", ks)
	inTable := keysByRange(t, s, ks, uniqueKeys, 2)
	var setup, reads int64
	for i, r := range rs {
		keys := r.summary.Counters["setup_keys"]
		setup += keys
		if keys < PureReadSetupKeys/2 || keys > PureReadSetupKeys/2+15 || inTable[i] != keys {
			t.Errorf("agent %d: setup wrote %d keys, its part of the table holds %d; want %d", i, keys, inTable[i], PureReadSetupKeys/2)
		}
		read := r.op("Read")
		reads += read.Units
		if c := r.summary.Counters; c["read_verify_failures"] != 0 || c["read_row_count_mismatches"] != 0 || read.Statuses["OK"] != read.Units {
			t.Errorf("agent %d: %d verification failures, %d missing rows, reads %+v", i, c["read_verify_failures"], c["read_row_count_mismatches"], read)
		}
	}
	if reads < numReads {
		t.Errorf("%d reads in all, want --num_reads %d", reads, numReads)
	}
	if n := count(t, s, ks); n != setup {
		t.Errorf("the table holds %d rows; the setups wrote %d keys", n, setup)
	}
}
