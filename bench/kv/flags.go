package kv

import (
	"strconv"
	"time"

	"github.com/ybbench/ybbench/bench/ycql"
)

// flagKind is how a flag is written: a switch stands alone, a value flag
// takes the next word (or =value).
type flagKind int

const (
	kindBool flagKind = iota
	kindValue
)

// flagGroup says whose a flag is, for the help.
type flagGroup int

const (
	groupTool    flagGroup = iota // yb-sample-apps' own
	groupRefused                  // yb-sample-apps' own, not implemented: refused
	groupYbload                   // ybload's own (--ybload_*)
)

// flagDef is one flag of `ybload kv`: how it is written, its default, what
// the help says of it and where its value lands. The table is the one list
// of the flags: the parser, the defaults and the help all come from it, so
// that a flag cannot be parsed one way and documented another.
type flagDef struct {
	name string
	kind flagKind
	arg  string // the value's placeholder in the help ("" for a switch)
	// def is the default as a value of the flag: it lands through set
	// before the flags given, and the help shows it.
	def string
	// defNote is what the help shows for a default that is no value of the
	// flag (a random prefix, the host name) or that set does not land
	// (the workload picks --batch_size's); "" when def says it.
	defNote string
	help    string
	// required, for a flag that must be given, is what the error asks for;
	// the help marks the flag required.
	required string
	group    flagGroup
	// batchOnly marks a flag that only CassandraBatchKeyValue takes.
	batchOnly bool
	// secret is a flag whose value the records show masked.
	secret bool
	// set lands a value of the flag in the options, or says why it is
	// refused; nil for a flag that is accepted and changes nothing.
	set setter
}

// flagDefs are yb-sample-apps' flags (spec kv §11) that the key-value
// workloads read, then ybload's own, in the help's order. A row's set may
// read the rows above it (--batch_size is checked against
// --num_unique_keys), never those below.
var flagDefs = []flagDef{
	{name: "workload", kind: kindValue, arg: "name", help: workloadChoice, required: workloadChoice, set: setWorkload},
	{name: "nodes", kind: kindValue, arg: "host:port,…", help: "the YCQL endpoints", required: "host:port[,host:port…]", set: setNodes},
	{name: "nouuid", kind: kindBool, help: "keys key:<n> instead of <uuid>:<n>", set: switchOn(func(o *Options) *bool { return &o.NoUUID })},
	{name: "uuid", kind: kindValue, arg: "uuid", defNote: "a random one", help: "the key prefix (the keys of an earlier run)", set: text(func(o *Options) *string { return &o.UUID })},
	{name: "num_threads_read", kind: kindValue, arg: "n", def: strconv.Itoa(DefaultReaders), help: "reader threads", set: intAtLeast(0, func(o *Options) *int { return &o.Readers })},
	{name: "num_threads_write", kind: kindValue, arg: "n", def: strconv.Itoa(DefaultWriters), help: "writer threads", set: intAtLeast(0, func(o *Options) *int { return &o.Writers })},
	{name: "num_threads", kind: kindValue, arg: "n", help: "accepted, no effect on these workloads", set: intAtLeast(1, discard)},
	{name: "num_reads", kind: kindValue, arg: "n", def: strconv.Itoa(DefaultNumReads), help: "keys to read in all (-1: until --run_time)", set: intAtLeast(-1, func(o *Options) *int64 { return &o.NumReads })},
	{name: "num_writes", kind: kindValue, arg: "n", def: strconv.Itoa(DefaultNumWrites), help: "keys to write in all (-1: until --run_time)", set: intAtLeast(-1, func(o *Options) *int64 { return &o.NumWrites })},
	{name: "num_unique_keys", kind: kindValue, arg: "n", def: strconv.Itoa(DefaultUniqueKeys), help: "keys inserted before writes turn into updates", set: intAtLeast(1, func(o *Options) *int64 { return &o.UniqueKeys })},
	{name: "max_written_key", kind: kindValue, arg: "n", def: "-1", help: "the highest key an earlier run wrote (reusing its table)", set: intAtLeast(-1, func(o *Options) *int64 { return &o.MaxWrittenKey })},
	{name: "value_size", kind: kindValue, arg: "bytes", def: "0", help: "value size (0: the text val:<n>)", set: intAtLeast(0, func(o *Options) *int { return &o.ValueSize })},
	{name: "use_ascii_values", kind: kindBool, help: "values of ASCII characters only", set: switchOn(func(o *Options) *bool { return &o.ASCIIValues })},
	{name: "batch_size", kind: kindValue, arg: "n", defNote: strconv.Itoa(DefaultBatchSize), help: "keys per LOGGED batch", batchOnly: true, set: setBatchSize},
	{name: "table_ttl_seconds", kind: kindValue, arg: "s", def: "-1", help: "the table's default TTL (-1: none)", set: intAtLeast(-1, func(o *Options) *int64 { return &o.TableTTL })},
	{name: "run_time", kind: kindValue, arg: "s", def: "-1", help: "stop after this many seconds (-1 or 0: no limit)", set: setRunTime},
	{name: "read_only", kind: kindBool, help: "read only, the keys of an earlier run (needs --uuid or --nouuid)", set: switchOn(func(o *Options) *bool { return &o.ReadOnly })},
	{name: "local_reads", kind: kindBool, help: "reads at consistency ONE instead of QUORUM", set: switchOn(func(o *Options) *bool { return &o.LocalReads })},
	{name: "concurrent_clients", kind: kindValue, arg: "n", def: strconv.Itoa(DefaultConcurrent), help: "connections per host", set: intAtLeast(1, func(o *Options) *int { return &o.ConcurrentClients })},
	{name: "with_local_dc", kind: kindValue, arg: "dc", help: "prefer this data centre's hosts", set: text(func(o *Options) *string { return &o.LocalDC })},
	{name: "disable_yb_load_balancing_policy", kind: kindBool, help: "round robin instead of YugabyteDB's partition-aware routing", set: switchOn(func(o *Options) *bool { return &o.DisableYBPolicy })},
	// 0 in the options leaves the driver's default, which the help shows.
	{name: "cql_connect_timeout_ms", kind: kindValue, arg: "ms", defNote: strconv.FormatInt(ycql.DefaultConnectTimeout.Milliseconds(), 10), help: "connect timeout", set: intAtLeast(0, func(o *Options) *int { return &o.ConnectTimeoutMS })},
	{name: "cql_read_timeout_ms", kind: kindValue, arg: "ms", defNote: strconv.FormatInt(ycql.DefaultReadTimeout.Milliseconds(), 10), help: "read timeout", set: intAtLeast(0, func(o *Options) *int { return &o.ReadTimeoutMS })},
	{name: "username", kind: kindValue, arg: "user", help: "log in as this user (needs a password)", set: text(func(o *Options) *string { return &o.Username })},
	{name: "password", kind: kindValue, arg: "password", help: "the password (better: --ybload_password_file or $" + ycql.PasswordEnv + ")", secret: true, set: text(func(o *Options) *string { return &o.Password })},
	{name: "ssl_cert", kind: kindValue, arg: "file", help: "TLS, verifying the server with this CA certificate", set: text(func(o *Options) *string { return &o.SSLCert })},
	{name: "ssl_key", kind: kindValue, arg: "file", help: "accepted, no effect on these workloads"},
	{name: "create_table_name", kind: kindValue, arg: "name", def: "CassandraKeyValue", help: "the table to write", set: textOrDefault(func(o *Options) *string { return &o.Table })},
	{name: "drop_table_name", kind: kindValue, arg: "name", help: "drop this table first, then create and run on it", set: setDropTable},
	{name: "keep_table", kind: kindBool, help: "accepted, no effect on these workloads"},
	{name: "truncate", kind: kindBool, help: "accepted, no effect on these workloads"},
	{name: "skip_ddl", kind: kindBool, help: "create neither keyspace nor table", set: switchOn(func(o *Options) *bool { return &o.SkipDDL })},
	{name: "skip_workload", kind: kindBool, help: "drop the --drop_table_name table and stop", set: switchOn(func(o *Options) *bool { return &o.SkipWorkload })},
	{name: "print_all_exceptions", kind: kindBool, help: "log every exception, not a sample", set: switchOn(func(o *Options) *bool { return &o.PrintAllExceptions })},
	{name: "sanity_check_at_end", kind: kindBool, help: "log an error at the end if nothing ran or anything failed", set: switchOn(func(o *Options) *bool { return &o.SanityCheckAtEnd })},
	{name: "verbose", kind: kindBool, help: "accepted, no effect"},

	{name: "read_rate", kind: kindValue, arg: "n", help: "refused: per-thread throttling is not implemented", group: groupRefused},
	{name: "write_rate", kind: kindValue, arg: "n", help: "refused: per-thread throttling is not implemented", group: groupRefused},
	{name: "lock_step", kind: kindBool, help: "refused: lock-step mode is not implemented", group: groupRefused},
	{name: "output_json_metrics", kind: kindBool, help: "refused: use --ybload_summary and --ybload_records", group: groupRefused},
	{name: "report_read_restarts", kind: kindBool, help: "refused: YSQL only", group: groupRefused},

	{name: "ybload_records", kind: kindValue, arg: "file", help: "write the tick records (JSON lines, HDR histograms)", group: groupYbload, set: text(func(o *Options) *string { return &o.Records })},
	{name: "ybload_summary", kind: kindValue, arg: "file", help: "write the JSON summary", group: groupYbload, set: text(func(o *Options) *string { return &o.Summary })},
	{name: "ybload_agent", kind: kindValue, arg: "name", defNote: "the host name", help: "this agent's name in its records", group: groupYbload, set: text(func(o *Options) *string { return &o.Agent })},
	{name: "ybload_keyspace", kind: kindValue, arg: "name", def: DefaultKeyspace, help: "the keyspace", group: groupYbload, set: textOrDefault(func(o *Options) *string { return &o.Keyspace })},
	{name: "ybload_replication_factor", kind: kindValue, arg: "n", defNote: "the nodes, at most 3", help: "the keyspace's replication factor", group: groupYbload, set: intAtLeast(1, func(o *Options) *int { return &o.ReplicationFactor })},
	{name: "ybload_stagger_ms", kind: kindValue, arg: "ms", def: strconv.FormatInt(DefaultStagger.Milliseconds(), 10), help: "pause between thread starts", group: groupYbload, set: millisAtLeast(0, func(o *Options) *time.Duration { return &o.Stagger })},
	{name: "ybload_seed", kind: kindValue, arg: "n", defNote: "time-based, recorded", help: "the random seed", group: groupYbload, set: setSeed},
	{name: "ybload_retries", kind: kindValue, arg: "n", def: "1", help: "retries of a timeout or unavailable error per statement; request errors go on to the next host until the plan runs out (the Java driver's policy; 0: none)", group: groupYbload, set: intAtLeast(0, func(o *Options) *int { return &o.Retries })},
	{name: "ybload_flavor", kind: kindValue, arg: "name", def: string(ycql.FlavorAuto), help: "the server: auto (detected), yugabytedb or cassandra", group: groupYbload, set: setFlavor},
	{name: "ybload_password_file", kind: kindValue, arg: "file", help: "read the password from this 0600 file", group: groupYbload, set: setPasswordFile},
	{name: "ybload_token_aware", kind: kindBool, help: "route by gocql's token-aware policy (for Apache Cassandra; off: partition-aware on YugabyteDB, else round robin as the reference's child policy)", group: groupYbload, set: switchOn(func(o *Options) *bool { return &o.TokenAware })},
	{name: "ybload_row_count_check", kind: kindBool, help: "COUNT(*) the table before and after", group: groupYbload, set: switchOn(func(o *Options) *bool { return &o.RowCountCheck })},
	{name: "ybload_cpuprofile", kind: kindValue, arg: "file", help: "write a Go CPU profile", group: groupYbload, set: text(func(o *Options) *string { return &o.CPUProfile })},
	{name: "ybload_metrics_interval_ms", kind: kindValue, arg: "ms", def: strconv.FormatInt(DefaultMetricsInterval.Milliseconds(), 10), help: "the metrics line's interval", group: groupYbload, set: millisAtLeast(100, func(o *Options) *time.Duration { return &o.MetricsInterval })},
	{name: "ybload_target_ops_per_sec", kind: kindValue, arg: "n", defNote: "none: a closed loop", help: "pace the workload on an open model: n operations a second over all threads, each thread on a fixed schedule, latencies from the intended start (not yb-sample-apps' --read_rate/--write_rate)", group: groupYbload, set: intAtLeast(1, func(o *Options) *int64 { return &o.TargetOpsPerSec })},
	{name: "ybload_late_after_ms", kind: kindValue, arg: "ms", def: strconv.FormatInt(DefaultLateAfter.Milliseconds(), 10), help: "with --ybload_target_ops_per_sec, how far past its intended start an operation must start to count as late", group: groupYbload, set: millisAtLeast(1, func(o *Options) *time.Duration { return &o.LateAfter })},
	{name: "ybload_warmup_ms", kind: kindValue, arg: "ms", def: "0", help: "run the workload this long before --run_time starts, measured apart and left out of the results (yb-sample-apps has no warm-up; a throughput–latency sweep's steps have one)", group: groupYbload, set: millisAtLeast(0, func(o *Options) *time.Duration { return &o.Warmup })},
	{name: "ybload_agent_index", kind: kindValue, arg: "i", help: "this agent's part of the run (0 …), with --ybload_agent_count", group: groupYbload, set: intAtLeast(0, func(o *Options) *int { return &o.AgentIndex })},
	{name: "ybload_agent_count", kind: kindValue, arg: "n", def: "1", help: "agents sharing the run: each writes and reads its own part of the keys, and --num_unique_keys, --num_writes, --num_reads and the read-only setup's keys are split between them", group: groupYbload, set: intAtLeast(1, func(o *Options) *int { return &o.AgentCount })},
	{name: "ybload_start_at", kind: kindValue, arg: "time", help: "start the measured workload at this instant (Unix ms or RFC 3339)", group: groupYbload, set: setStartAt},
	{name: "ybload_metrics_addr", kind: kindValue, arg: "host:port", defNote: "off", help: "serve live metrics for Prometheus at http://host:port/metrics while the workload runs", group: groupYbload, set: setMetricsAddr},
}

// workloadChoice names the workloads ybload kv runs, for --workload's help
// and its errors.
const workloadChoice = WorkloadKV + " or " + WorkloadBatchKV

// flagsByName are the rows by name, for the parser and the help request. A
// flag of the tool that ybload does not implement is in it too, so that it
// is refused with why rather than called unknown.
var flagsByName = indexFlags(flagDefs)

func indexFlags(defs []flagDef) map[string]*flagDef {
	m := make(map[string]*flagDef, len(defs))
	for i := range defs {
		m[defs[i].name] = &defs[i] // a name listed twice is caught by TestFlagDefs
	}
	return m
}

// unsupported are the flags of yb-sample-apps that ybload refuses, with
// what they would need: refused, not silently dropped, since each changes
// what is measured.
var unsupported = map[string]string{
	"read_rate": "per-thread throttling", "write_rate": "per-thread throttling", "lock_step": "lock-step mode",
	"output_json_metrics":  "the JSON metrics lines (use --ybload_summary and --ybload_records)",
	"report_read_restarts": "read-restart counters (YSQL only)",
}

// noEffect are flags yb-sample-apps accepts that do nothing for the YCQL
// key-value apps (spec kv §3, §11): accepted as there, and named in a log line.
var noEffect = map[string]string{
	"num_threads": "used only by workloads with a read percentage, not these",
	"ssl_key":     "the client key applies to the SQL apps only",
	"keep_table":  "the YCQL apps ignore the table operations",
	"truncate":    "the YCQL apps ignore the table operations",
	"verbose":     "declared but never read by yb-sample-apps",
}
