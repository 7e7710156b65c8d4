package kv

import (
	"github.com/ybbench/ybbench/bench/agentutil"

	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/gocql/gocql"

	"github.com/ybbench/ybbench/bench/ycql"
)

// The workloads.
const (
	WorkloadKV      = "CassandraKeyValue"
	WorkloadBatchKV = "CassandraBatchKeyValue"
)

// Defaults of yb-sample-apps today (HEAD; spec kv §1, §8, §11). The
// published figures came from v1.2.0, whose reads and writes ran forever:
// pass --num_reads -1 / --num_writes -1 (or --run_time) to reproduce them.
const (
	DefaultKeyspace        = "ybdemo_keyspace"
	DefaultReaders         = 24
	DefaultWriters         = 2
	DefaultNumReads        = 1_500_000
	DefaultNumWrites       = 2_000_000
	DefaultUniqueKeys      = 2_000_000
	DefaultBatchSize       = 10 // CassandraBatchKeyValue; CassandraKeyValue writes one key
	DefaultConcurrent      = 4
	DefaultStagger         = 50 * time.Millisecond
	PureReadSetupKeys      = 100_000
	DefaultMetricsInterval = 5 * time.Second
	// MaxConsecutiveErrors is how many exceptions in a row end a thread.
	MaxConsecutiveErrors = 500
)

// Options is a parsed `ybload kv` command line.
type Options struct {
	Workload string
	Hosts    []string
	Port     int

	UUID   string // key prefix: a UUID, or "key" with --nouuid
	NoUUID bool

	Readers, Writers    int
	NumReads, NumWrites int64 // -1: until --run_time
	UniqueKeys          int64
	MaxWrittenKey       int64
	ValueSize           int
	ASCIIValues         bool
	BatchSize           int
	TableTTL            int64
	RunTime             time.Duration // 0: unbounded
	ReadOnly            bool
	LocalReads          bool
	ConcurrentClients   int
	LocalDC             string
	DisableYBPolicy     bool
	ConnectTimeoutMS    int
	ReadTimeoutMS       int
	Username, Password  string
	SSLCert             string
	Table               string // --create_table_name, default the workload's table
	DropTable           string // --drop_table_name
	SkipDDL             bool
	SkipWorkload        bool
	PrintAllExceptions  bool
	SanityCheckAtEnd    bool
	// NoEffect names the given flags that, as in yb-sample-apps, change
	// nothing for these workloads, each with why; ybload logs them.
	NoEffect []string

	// ybload's own (--ybload_*), off or neutral by default.
	Keyspace          string
	ReplicationFactor int // 0: the cluster's node count, at most 3
	Stagger           time.Duration
	Records, Summary  string
	Agent             string
	Seed              uint64
	SeedSet           bool
	Retries           int
	Flavor            string
	RowCountCheck     bool
	// TokenAware routes by gocql's token-aware policy off YugabyteDB.
	TokenAware      bool
	CPUProfile      string
	MetricsInterval time.Duration
	// StartAt is when the measured workload starts (zero: at once): agents
	// on several clients are given the same instant.
	StartAt time.Time
	// AgentIndex and AgentCount are this agent's place among the agents
	// sharing the run (0 and 1: alone); Part is what that gives it.
	AgentIndex, AgentCount int
	Part                   Part

	// Set records which flags were given (for the records).
	Set map[string]string
}

type flagKind int

const (
	kindBool flagKind = iota
	kindValue
)

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

// ParseArgs reads `ybload kv` flags, written as yb-sample-apps writes them
// (--name value; --name=value also works). getenv supplies
// YBLOAD_YCQL_PASSWORD. Every problem is reported at once.
func ParseArgs(args []string, getenv func(string) string) (*Options, error) {
	o := &Options{Port: ycql.DefaultPort, MaxWrittenKey: -1, TableTTL: -1, ConcurrentClients: DefaultConcurrent,
		Keyspace: DefaultKeyspace, Stagger: DefaultStagger, Retries: 1, Flavor: string(ycql.FlavorAuto),
		MetricsInterval: DefaultMetricsInterval, Set: map[string]string{}}
	var errs []error
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !strings.HasPrefix(a, "--") || len(a) < 3 {
			errs = append(errs, fmt.Errorf("unexpected argument %q: flags are written --name value", a))
			continue
		}
		name, val, hasVal := strings.Cut(a[2:], "=")
		kind, ok := flags[name]
		if !ok {
			errs = append(errs, fmt.Errorf("unknown flag --%s", name))
			continue
		}
		if kind == kindValue && !hasVal {
			if i+1 >= len(args) {
				errs = append(errs, fmt.Errorf("flag --%s needs a value", name))
				continue
			}
			i++
			val = args[i]
		}
		if kind == kindBool {
			if hasVal {
				errs = append(errs, fmt.Errorf("flag --%s takes no value", name))
				continue
			}
			val = "true"
		}
		if why, bad := unsupported[name]; bad {
			errs = append(errs, fmt.Errorf("--%s: %s is not supported by ybload", name, why))
			continue
		}
		if why, ok := noEffect[name]; ok {
			o.NoEffect = append(o.NoEffect, "--"+name+": no effect ("+why+")")
		}
		if name == "password" {
			o.Set[name] = "****"
		} else {
			o.Set[name] = val
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	o.Workload = o.Set["workload"]
	switch o.Workload {
	case WorkloadKV:
		o.BatchSize = 1
	case WorkloadBatchKV:
		o.BatchSize = DefaultBatchSize
	case "":
		errs = append(errs, errors.New("--workload is required: CassandraKeyValue or CassandraBatchKeyValue"))
	default:
		errs = append(errs, fmt.Errorf("--workload %s: ybload kv runs CassandraKeyValue and CassandraBatchKeyValue", o.Workload))
	}
	o.Readers, o.Writers = DefaultReaders, DefaultWriters
	o.NumReads, o.NumWrites, o.UniqueKeys = DefaultNumReads, DefaultNumWrites, DefaultUniqueKeys
	o.Table = "CassandraKeyValue" // both workloads write this table
	num := func(name string, dst *int64, min int64) {
		v, ok := o.Set[name]
		if !ok {
			return
		}
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			errs = append(errs, fmt.Errorf("--%s %q: not an integer", name, v))
			return
		}
		if n < min {
			errs = append(errs, fmt.Errorf("--%s %d: must be at least %d", name, n, min))
			return
		}
		*dst = n
	}
	intFlag := func(name string, dst *int, min int64) {
		x := int64(*dst)
		num(name, &x, min)
		*dst = int(x)
	}
	if v, ok := o.Set["nodes"]; ok {
		h, p, err := ycql.ParseNodes(v)
		if err != nil {
			errs = append(errs, err)
		}
		o.Hosts, o.Port = h, p
	} else {
		errs = append(errs, errors.New("--nodes is required: host:port[,host:port…]"))
	}
	o.NoUUID = o.Set["nouuid"] == "true"
	o.UUID = o.Set["uuid"]
	if o.NoUUID && o.UUID != "" {
		errs = append(errs, errors.New("--uuid and --nouuid exclude each other"))
	}
	intFlag("num_threads_read", &o.Readers, 0)
	intFlag("num_threads_write", &o.Writers, 0)
	var ignored int
	intFlag("num_threads", &ignored, 1)
	num("num_reads", &o.NumReads, -1)
	num("num_writes", &o.NumWrites, -1)
	num("num_unique_keys", &o.UniqueKeys, 1)
	num("max_written_key", &o.MaxWrittenKey, -1)
	intFlag("value_size", &o.ValueSize, 0)
	o.ASCIIValues = o.Set["use_ascii_values"] == "true"
	if o.Workload == WorkloadKV {
		// The reference reads --batch_size for every app and refuses one
		// above --num_unique_keys, but CassandraKeyValue writes one key a
		// statement whatever it says.
		var batch int64 = 1
		num("batch_size", &batch, math.MinInt32)
		if batch > o.UniqueKeys {
			errs = append(errs, fmt.Errorf("--batch_size %d: the batch size cannot be more than --num_unique_keys %d, as the reference refuses", batch, o.UniqueKeys))
		}
		if _, ok := o.Set["batch_size"]; ok {
			o.NoEffect = append(o.NoEffect, "--batch_size: no effect (CassandraKeyValue writes one key a statement)")
		}
	} else {
		intFlag("batch_size", &o.BatchSize, 1)
	}
	num("table_ttl_seconds", &o.TableTTL, -1)
	var rt int64 = -1
	num("run_time", &rt, -1)
	if rt > 0 {
		o.RunTime = time.Duration(rt) * time.Second
	}
	o.ReadOnly = o.Set["read_only"] == "true"
	o.LocalReads = o.Set["local_reads"] == "true"
	intFlag("concurrent_clients", &o.ConcurrentClients, 1)
	o.LocalDC = o.Set["with_local_dc"]
	o.DisableYBPolicy = o.Set["disable_yb_load_balancing_policy"] == "true"
	intFlag("cql_connect_timeout_ms", &o.ConnectTimeoutMS, 0)
	intFlag("cql_read_timeout_ms", &o.ReadTimeoutMS, 0)
	o.Username = o.Set["username"]
	o.SSLCert = o.Set["ssl_cert"]
	if t := o.Set["create_table_name"]; t != "" {
		o.Table = t
	}
	// As in the reference, the table dropped is the table the workload then
	// creates and runs on.
	o.DropTable = o.Set["drop_table_name"]
	if o.DropTable != "" {
		o.Table = o.DropTable
	}
	o.SkipDDL = o.Set["skip_ddl"] == "true"
	o.SkipWorkload = o.Set["skip_workload"] == "true"
	o.PrintAllExceptions = o.Set["print_all_exceptions"] == "true"
	o.SanityCheckAtEnd = o.Set["sanity_check_at_end"] == "true"

	// Password: --password, a 0600 file, or the environment; never needed
	// on the command line.
	for i, a := range args {
		if a == "--password" && i+1 < len(args) {
			o.Password = args[i+1]
		} else if strings.HasPrefix(a, "--password=") {
			o.Password = strings.TrimPrefix(a, "--password=")
		}
	}
	if f := o.Set["ybload_password_file"]; f != "" {
		pw, err := agentutil.ReadSecretFile(f)
		if err != nil {
			errs = append(errs, fmt.Errorf("--ybload_password_file: %w", err))
		}
		o.Password = pw
	}
	if o.Password == "" && getenv != nil {
		o.Password = getenv(ycql.PasswordEnv)
	}
	if _, ok := o.Set["password"]; ok && o.Username == "" {
		errs = append(errs, errors.New("--password requires --username to be set, as the reference requires"))
	}
	if o.Username != "" && o.Password == "" {
		errs = append(errs, fmt.Errorf("--username %s needs a password (--password, --ybload_password_file or %s), as the reference requires", o.Username, ycql.PasswordEnv))
	}

	if v := o.Set["ybload_keyspace"]; v != "" {
		o.Keyspace = v
	}
	intFlag("ybload_replication_factor", &o.ReplicationFactor, 1)
	var st int64 = DefaultStagger.Milliseconds()
	num("ybload_stagger_ms", &st, 0)
	o.Stagger = time.Duration(st) * time.Millisecond
	var mi int64 = DefaultMetricsInterval.Milliseconds()
	num("ybload_metrics_interval_ms", &mi, 100)
	o.MetricsInterval = time.Duration(mi) * time.Millisecond
	o.Records, o.Summary, o.CPUProfile = o.Set["ybload_records"], o.Set["ybload_summary"], o.Set["ybload_cpuprofile"]
	o.Agent = o.Set["ybload_agent"]
	if o.Agent == "" {
		o.Agent = agentutil.Hostname()
	}
	if v, ok := o.Set["ybload_seed"]; ok {
		s, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			errs = append(errs, fmt.Errorf("--ybload_seed %q: want an unsigned integer", v))
		}
		o.Seed, o.SeedSet = s, true
	} else {
		o.Seed = uint64(time.Now().UnixNano())
	}
	if v, ok := o.Set["ybload_start_at"]; ok {
		at, err := agentutil.ParseStartAt(v)
		if err != nil {
			errs = append(errs, fmt.Errorf("--ybload_start_at %q: %w", v, err))
		}
		o.StartAt = at
	}
	intFlag("ybload_retries", &o.Retries, 0)
	if v := o.Set["ybload_flavor"]; v != "" {
		o.Flavor = v
	}
	o.RowCountCheck = o.Set["ybload_row_count_check"] == "true"
	o.TokenAware = o.Set["ybload_token_aware"] == "true"
	if o.TokenAware && o.DisableYBPolicy {
		errs = append(errs, errors.New("--ybload_token_aware and --disable_yb_load_balancing_policy exclude each other"))
	}
	o.AgentCount = 1
	intFlag("ybload_agent_index", &o.AgentIndex, 0)
	intFlag("ybload_agent_count", &o.AgentCount, 1)
	_, hasIndex := o.Set["ybload_agent_index"]
	_, hasCount := o.Set["ybload_agent_count"]
	switch {
	case hasIndex != hasCount:
		errs = append(errs, errors.New("--ybload_agent_index and --ybload_agent_count go together"))
	case o.AgentIndex >= o.AgentCount:
		errs = append(errs, fmt.Errorf("--ybload_agent_index %d: must be below --ybload_agent_count %d", o.AgentIndex, o.AgentCount))
	case int64(o.AgentCount) > o.UniqueKeys:
		errs = append(errs, fmt.Errorf("--ybload_agent_count %d: more agents than --num_unique_keys %d, some would have no key", o.AgentCount, o.UniqueKeys))
	}
	if o.AgentCount > 1 && o.RowCountCheck {
		errs = append(errs, errors.New("--ybload_row_count_check with --ybload_agent_count above 1: the table holds every agent's keys, not this agent's"))
	}

	// The combinations the reference refuses, with its reasons.
	_, hasCreate := o.Set["create_table_name"]
	_, hasDrop := o.Set["drop_table_name"]
	if o.SkipWorkload && !hasDrop {
		errs = append(errs, errors.New("--skip_workload: the table name to be dropped (--drop_table_name) is expected when skipping the workload run"))
	}
	if hasCreate && hasDrop {
		errs = append(errs, errors.New("--create_table_name and --drop_table_name cannot be provided together"))
	}
	if _, keep := o.Set["keep_table"]; keep && hasDrop {
		errs = append(errs, errors.New("--keep_table and --drop_table_name cannot be provided together"))
	}
	if _, dc := o.Set["with_local_dc"]; dc && o.DisableYBPolicy {
		errs = append(errs, errors.New("--disable_yb_load_balancing_policy cannot be used with --with_local_dc"))
	}

	// The tool's own rules.
	if o.ReadOnly {
		if o.UUID == "" && !o.NoUUID {
			errs = append(errs, errors.New("--read_only needs --uuid or --nouuid (the keys of an earlier run)"))
		}
		o.Writers = 0
	}
	if o.MaxWrittenKey >= o.UniqueKeys {
		errs = append(errs, fmt.Errorf("--max_written_key %d must be below --num_unique_keys %d (keys are numbered from 0)", o.MaxWrittenKey, o.UniqueKeys))
	}
	if o.BatchSize > 1 && int64(o.BatchSize) > o.UniqueKeys/int64(max(o.AgentCount, 1)) {
		errs = append(errs, fmt.Errorf("--batch_size %d is larger than --num_unique_keys %d (per agent, over %d)", o.BatchSize, o.UniqueKeys, max(o.AgentCount, 1)))
	}
	if o.Readers+o.Writers == 0 && !o.SkipWorkload {
		errs = append(errs, errors.New("no threads: --num_threads_read and --num_threads_write are both 0"))
	}
	switch ycql.Flavor(o.Flavor) {
	case ycql.FlavorAuto, ycql.FlavorYugabyte, ycql.FlavorCassandra:
	default:
		errs = append(errs, fmt.Errorf("--ybload_flavor %q: want auto, yugabytedb or cassandra", o.Flavor))
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	if o.NoUUID {
		o.UUID = "key"
	}
	o.Part = PartOf(o.UniqueKeys, o.NumWrites, o.NumReads, o.AgentCount, o.AgentIndex)
	return o, nil
}

// CQLConfig is the session configuration the reference app builds
// (AppBase.createCassandraClient): every node, concurrent_clients
// connections per host, QUORUM, idempotent statements retried by
// DefaultRetryPolicy, partition-aware unless disabled.
func (o *Options) CQLConfig() *ycql.Config {
	c := &ycql.Config{Hosts: o.Hosts, Port: o.Port, Keyspace: o.Keyspace, Username: o.Username, Password: o.Password,
		ConnsPerHost: o.ConcurrentClients, ConnectTimeout: ycql.DefaultConnectTimeout, ReadTimeout: ycql.DefaultReadTimeout,
		Retry: ycql.RetryOptions{Max: o.Retries, Idempotent: true}, Flavor: ycql.Flavor(o.Flavor), Routing: ycql.RoutingAuto,
		LocalDC: o.LocalDC, ProtoVersion: ycql.DefaultProtoVersion}
	c.Consistency = gocql.Quorum
	if o.ConnectTimeoutMS > 0 {
		c.ConnectTimeout = time.Duration(o.ConnectTimeoutMS) * time.Millisecond
	}
	if o.ReadTimeoutMS > 0 {
		c.ReadTimeout = time.Duration(o.ReadTimeoutMS) * time.Millisecond
	}
	if o.DisableYBPolicy {
		c.Routing = ycql.RoutingRoundRobin
	}
	if o.TokenAware {
		c.Routing = ycql.RoutingTokenAware
	}
	if o.SSLCert != "" {
		c.TLS = &ycql.TLSOptions{CAFile: o.SSLCert}
	}
	return c
}
