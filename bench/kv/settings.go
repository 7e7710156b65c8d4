package kv

import (
	"sort"
	"strconv"
	"strings"

	"github.com/ybbench/ybbench/bench/ycql"
)

// countersOf are the run's counters as the records and the summary give
// them: the workload's, the keys', and the session's.
func countersOf(wl *Workload, keys *KeyGen, sess *ycql.Session, setupKeys int64) map[string]int64 {
	c := wl.Snapshot()
	m := map[string]int64{
		"reads": c.ReadOps, "keys_written": c.WriteOps, "write_batches": c.Batches,
		"read_verify_failures": c.VerifyFailed, "read_row_count_mismatches": c.RowCount,
		"exceptions": c.Exceptions, "failed_threads": c.FailedThreads,
		"max_written_key": keys.MaxWritten(), "max_generated_key": keys.MaxGenerated(), "failed_keys": keys.Failed(),
		"setup_keys": setupKeys,
	}
	for k, v := range sess.Stats() {
		m[k] = v
	}
	return m
}

// settingsOf records what shapes the numbers, for the records and summary:
// the session's settings, the workload's, and every flag given.
func settingsOf(o *Options, sess *ycql.Session, ddl []string, version string) map[string]string {
	s := sess.Settings()
	s["ybload.version"] = version
	s["kv.workload"] = o.Workload
	s["kv.read_consistency"] = "QUORUM"
	if o.LocalReads {
		s["kv.read_consistency"] = "ONE (--local_reads)"
	}
	s["kv.write_consistency"] = "QUORUM"
	s["kv.key_prefix"] = o.UUID
	s["kv.table"] = o.Keyspace + "." + o.Table
	s["kv.ddl"] = strings.Join(ddl, " ")
	s["kv.value_size"] = strconv.Itoa(o.ValueSize)
	s["kv.batch_size"] = strconv.Itoa(o.BatchSize)
	s["kv.threads_read"] = strconv.Itoa(o.Readers)
	s["kv.threads_write"] = strconv.Itoa(o.Writers)
	s["kv.num_reads"] = strconv.FormatInt(o.NumReads, 10)
	s["kv.num_writes"] = strconv.FormatInt(o.NumWrites, 10)
	s["kv.num_unique_keys"] = strconv.FormatInt(o.UniqueKeys, 10)
	s["kv.run_time"] = o.RunTime.String()
	if o.Warmup > 0 {
		s["kv.warmup"] = o.Warmup.String()
	}
	s["kv.thread_stagger"] = o.Stagger.String()
	s["kv.seed"] = strconv.FormatUint(o.Seed, 10)
	if p := o.Part; p.Split() {
		// A deviation from yb-sample-apps, which has one process per run:
		// said in the records whenever it is on.
		s["kv.agent"] = strconv.Itoa(p.Index) + " of " + strconv.Itoa(p.Count)
		s["kv.agent_keys"] = strconv.FormatInt(p.KeyStart, 10) + "-" + strconv.FormatInt(p.KeyStart+p.Keys-1, 10)
		s["kv.agent_num_writes"] = strconv.FormatInt(p.NumWrites, 10)
		s["kv.agent_num_reads"] = strconv.FormatInt(p.NumReads, 10)
		s["kv.agent_setup_keys"] = strconv.FormatInt(p.SetupKeys, 10)
	}
	keys := make([]string, 0, len(o.Set))
	for k := range o.Set {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var flags []string
	for _, k := range keys {
		flags = append(flags, "--"+k+" "+o.Set[k])
	}
	s["kv.flags"] = strings.Join(flags, " ")
	return s
}
