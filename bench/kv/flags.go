package kv

import (
	"strconv"

	"github.com/ybbench/ybbench/bench/ycql"
)

// flagGroup says whose a flag is, for the help.
type flagGroup int

const (
	groupTool    flagGroup = iota // yb-sample-apps' own
	groupRefused                  // yb-sample-apps' own, not implemented: refused
	groupYbload                   // ybload's own (--ybload_*)
)

// flagDef is one flag of `ybload kv`: how it is parsed and what the help
// says of it. The table is the one list of the flags: the parser's kinds
// and the help both come from it.
type flagDef struct {
	name  string
	kind  flagKind
	arg   string // the value's placeholder in the help ("" for a switch)
	def   string // the default as the help shows it ("" for none)
	help  string
	group flagGroup
	// batchOnly marks a flag that only CassandraBatchKeyValue takes.
	batchOnly bool
}

// flagDefs are yb-sample-apps' flags (spec kv §11) that the key-value
// workloads read, then ybload's own, in the help's order.
var flagDefs = []flagDef{
	{name: "workload", kind: kindValue, arg: "name", help: "CassandraKeyValue or CassandraBatchKeyValue (required)"},
	{name: "nodes", kind: kindValue, arg: "host:port,…", help: "the YCQL endpoints (required)"},
	{name: "nouuid", kind: kindBool, help: "keys key:<n> instead of <uuid>:<n>"},
	{name: "uuid", kind: kindValue, arg: "uuid", def: "a random one", help: "the key prefix (the keys of an earlier run)"},
	{name: "num_threads_read", kind: kindValue, arg: "n", def: strconv.Itoa(DefaultReaders), help: "reader threads"},
	{name: "num_threads_write", kind: kindValue, arg: "n", def: strconv.Itoa(DefaultWriters), help: "writer threads"},
	{name: "num_threads", kind: kindValue, arg: "n", help: "accepted, no effect on these workloads"},
	{name: "num_reads", kind: kindValue, arg: "n", def: strconv.Itoa(DefaultNumReads), help: "keys to read in all (-1: until --run_time)"},
	{name: "num_writes", kind: kindValue, arg: "n", def: strconv.Itoa(DefaultNumWrites), help: "keys to write in all (-1: until --run_time)"},
	{name: "num_unique_keys", kind: kindValue, arg: "n", def: strconv.Itoa(DefaultUniqueKeys), help: "keys inserted before writes turn into updates"},
	{name: "max_written_key", kind: kindValue, arg: "n", def: "-1", help: "the highest key an earlier run wrote (reusing its table)"},
	{name: "value_size", kind: kindValue, arg: "bytes", def: "0", help: "value size (0: the text val:<n>)"},
	{name: "use_ascii_values", kind: kindBool, help: "values of ASCII characters only"},
	{name: "batch_size", kind: kindValue, arg: "n", def: strconv.Itoa(DefaultBatchSize), help: "keys per LOGGED batch", batchOnly: true},
	{name: "table_ttl_seconds", kind: kindValue, arg: "s", def: "-1", help: "the table's default TTL (-1: none)"},
	{name: "run_time", kind: kindValue, arg: "s", def: "-1", help: "stop after this many seconds (-1 or 0: no limit)"},
	{name: "read_only", kind: kindBool, help: "read only, the keys of an earlier run (needs --uuid or --nouuid)"},
	{name: "local_reads", kind: kindBool, help: "reads at consistency ONE instead of QUORUM"},
	{name: "concurrent_clients", kind: kindValue, arg: "n", def: strconv.Itoa(DefaultConcurrent), help: "connections per host"},
	{name: "with_local_dc", kind: kindValue, arg: "dc", help: "prefer this data centre's hosts"},
	{name: "disable_yb_load_balancing_policy", kind: kindBool, help: "round robin instead of YugabyteDB's partition-aware routing"},
	{name: "cql_connect_timeout_ms", kind: kindValue, arg: "ms", def: strconv.FormatInt(ycql.DefaultConnectTimeout.Milliseconds(), 10), help: "connect timeout"},
	{name: "cql_read_timeout_ms", kind: kindValue, arg: "ms", def: strconv.FormatInt(ycql.DefaultReadTimeout.Milliseconds(), 10), help: "read timeout"},
	{name: "username", kind: kindValue, arg: "user", help: "log in as this user (needs a password)"},
	{name: "password", kind: kindValue, arg: "password", help: "the password (better: --ybload_password_file or $" + ycql.PasswordEnv + ")"},
	{name: "ssl_cert", kind: kindValue, arg: "file", help: "TLS, verifying the server with this CA certificate"},
	{name: "ssl_key", kind: kindValue, arg: "file", help: "accepted, no effect on these workloads"},
	{name: "create_table_name", kind: kindValue, arg: "name", def: "CassandraKeyValue", help: "the table to write"},
	{name: "drop_table_name", kind: kindValue, arg: "name", help: "drop this table first, then create and run on it"},
	{name: "keep_table", kind: kindBool, help: "accepted, no effect on these workloads"},
	{name: "truncate", kind: kindBool, help: "accepted, no effect on these workloads"},
	{name: "skip_ddl", kind: kindBool, help: "create neither keyspace nor table"},
	{name: "skip_workload", kind: kindBool, help: "drop the --drop_table_name table and stop"},
	{name: "print_all_exceptions", kind: kindBool, help: "log every exception, not a sample"},
	{name: "sanity_check_at_end", kind: kindBool, help: "log an error at the end if nothing ran or anything failed"},
	{name: "verbose", kind: kindBool, help: "accepted, no effect"},

	{name: "read_rate", kind: kindValue, arg: "n", help: "refused: per-thread throttling is not implemented", group: groupRefused},
	{name: "write_rate", kind: kindValue, arg: "n", help: "refused: per-thread throttling is not implemented", group: groupRefused},
	{name: "lock_step", kind: kindBool, help: "refused: lock-step mode is not implemented", group: groupRefused},
	{name: "output_json_metrics", kind: kindBool, help: "refused: use --ybload_summary and --ybload_records", group: groupRefused},
	{name: "report_read_restarts", kind: kindBool, help: "refused: YSQL only", group: groupRefused},

	{name: "ybload_records", kind: kindValue, arg: "file", help: "write the tick records (JSON lines, HDR histograms)", group: groupYbload},
	{name: "ybload_summary", kind: kindValue, arg: "file", help: "write the JSON summary", group: groupYbload},
	{name: "ybload_agent", kind: kindValue, arg: "name", def: "the host name", help: "this agent's name in its records", group: groupYbload},
	{name: "ybload_keyspace", kind: kindValue, arg: "name", def: DefaultKeyspace, help: "the keyspace", group: groupYbload},
	{name: "ybload_replication_factor", kind: kindValue, arg: "n", def: "the nodes, at most 3", help: "the keyspace's replication factor", group: groupYbload},
	{name: "ybload_stagger_ms", kind: kindValue, arg: "ms", def: strconv.FormatInt(DefaultStagger.Milliseconds(), 10), help: "pause between thread starts", group: groupYbload},
	{name: "ybload_seed", kind: kindValue, arg: "n", def: "time-based, recorded", help: "the random seed", group: groupYbload},
	{name: "ybload_retries", kind: kindValue, arg: "n", def: "1", help: "retries of a timeout or unavailable error per statement; request errors go on to the next host until the plan runs out (the Java driver's policy; 0: none)", group: groupYbload},
	{name: "ybload_flavor", kind: kindValue, arg: "name", def: "auto", help: "the server: auto (detected), yugabytedb or cassandra", group: groupYbload},
	{name: "ybload_password_file", kind: kindValue, arg: "file", help: "read the password from this 0600 file", group: groupYbload},
	{name: "ybload_token_aware", kind: kindBool, help: "route by gocql's token-aware policy (for Apache Cassandra; off: partition-aware on YugabyteDB, else round robin as the reference's child policy)", group: groupYbload},
	{name: "ybload_row_count_check", kind: kindBool, help: "COUNT(*) the table before and after", group: groupYbload},
	{name: "ybload_cpuprofile", kind: kindValue, arg: "file", help: "write a Go CPU profile", group: groupYbload},
	{name: "ybload_metrics_interval_ms", kind: kindValue, arg: "ms", def: strconv.FormatInt(DefaultMetricsInterval.Milliseconds(), 10), help: "the metrics line's interval", group: groupYbload},
	{name: "ybload_agent_index", kind: kindValue, arg: "i", help: "this agent's part of the run (0 …), with --ybload_agent_count", group: groupYbload},
	{name: "ybload_agent_count", kind: kindValue, arg: "n", def: "1", help: "agents sharing the run: each writes and reads its own part of the keys, and --num_unique_keys, --num_writes, --num_reads and the read-only setup's keys are split between them", group: groupYbload},
	{name: "ybload_start_at", kind: kindValue, arg: "time", help: "start the measured workload at this instant (Unix ms or RFC 3339)", group: groupYbload},
}

// flags are the flags' kinds by name, for the parser. A flag of the tool
// that ybload does not implement is in it too, so that it is refused with
// why rather than called unknown.
var flags = flagKinds(flagDefs)

func flagKinds(defs []flagDef) map[string]flagKind {
	m := make(map[string]flagKind, len(defs))
	for _, d := range defs {
		m[d.name] = d.kind // a name listed twice is caught by TestFlagDefs
	}
	return m
}
