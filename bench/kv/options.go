package kv

import "time"

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
	DefaultLateAfter       = time.Millisecond
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
	// MetricsAddr is where the live metrics are served ("": off).
	MetricsAddr string
	// AgentIndex and AgentCount are this agent's place among the agents
	// sharing the run (0 and 1: alone); Part is what that gives it.
	AgentIndex, AgentCount int
	Part                   Part
	// TargetOpsPerSec paces the measured workload on an open model (0: a
	// closed loop, as yb-sample-apps runs): a total rate of operations
	// split evenly over the threads, each on a fixed schedule of intended
	// starts, latencies from the intended start. A throughput–latency
	// sweep offers each step's rate through it. LateAfter is how far past
	// its intended start an operation must start to count as late.
	TargetOpsPerSec int64
	LateAfter       time.Duration
	// Warmup runs the workload before its measured time, left out of the
	// results (0: none, as yb-sample-apps).
	Warmup time.Duration

	// Set records which flags were given (for the records).
	Set map[string]string
}
