package agentrun

import (
	"strconv"
	"strings"
	"time"

	"github.com/ybbench/ybbench/internal/exitcode"
)

// KV is one `ybload kv …` invocation: yb-sample-apps' key-value workloads
// over YCQL, each one measured phase on every agent.
type KV struct {
	Workload string // CassandraKeyValue or CassandraBatchKeyValue
	NoUUID   bool
	// BatchSize and ValueSize are the profile's (0: the tool's default).
	BatchSize, ValueSize int
	// Readers and Writers are this agent's threads of each kind.
	Readers, Writers int
	UniqueKeys       int64
	Nodes            []Server
	// NumReads and NumWrites are -1: the seeds' build ran until stopped,
	// here until RunTime.
	NumReads, NumWrites int64
	RunTime             time.Duration
	// Warmup runs before RunTime, left out of the results (0: none, as
	// yb-sample-apps; a sweep's steps have one).
	Warmup      time.Duration
	RecordsFile string
	SummaryFile string
	Agent       string
	// StartAt is the instant every agent starts its measured workload at.
	StartAt time.Time
	// AgentIndex and AgentCount are this agent's place among the phase's
	// agents: with more than one, each takes its own part of the keys and
	// counts (ybload's --ybload_agent_index/--ybload_agent_count).
	AgentIndex, AgentCount int
	// User is "" with authentication off; the password is in PasswordFile.
	User         string
	Password     string
	PasswordFile string
	// TargetOpsPerSec paces a sweep step (ybload's open model, this
	// agent's share; 0: yb-sample-apps' closed loop); LateAfter is the
	// late-start tolerance (0: the agent's).
	TargetOpsPerSec int64
	LateAfter       time.Duration
	// MetricsAddr is where the live metrics are served ("": off).
	MetricsAddr string
}

// buildKV reads the profile's workload arguments (the flags the profiles
// use; any other is refused, so nothing reaches the agent unchecked) and
// adds the run's.
func buildKV(in Input) (*KV, error) {
	if err := needEndpoints("YCQL", in.DB.YCQL); err != nil {
		return nil, err
	}
	if in.Phase.Phase != Run {
		return nil, exitcode.Errorf(exitcode.Tool, "kv has no phase %q", in.Phase.Phase)
	}
	k := &KV{NumReads: -1, NumWrites: -1, RunTime: in.Params.Duration.Truncate(time.Second), Warmup: in.warmup(),
		RecordsFile: in.file(".jsonl"), SummaryFile: in.file(".json"), Agent: in.Host, StartAt: in.StartAt,
		AgentIndex: in.Index, AgentCount: in.Count, TargetOpsPerSec: in.agentTarget(), LateAfter: in.LateAfter}
	for _, e := range in.DB.YCQL {
		k.Nodes = append(k.Nodes, Server{Addr: e.Addr, Port: e.Port})
	}
	a := in.WorkloadArgs
	bad := func(format string, v ...any) error {
		return exitcode.Errorf(exitcode.Config, "workload %s: "+format, append([]any{in.Phase.Workload}, v...)...)
	}
	for i := 0; i < len(a); i++ {
		name := strings.TrimPrefix(a[i], "--")
		if name == "nouuid" {
			k.NoUUID = true
			continue
		}
		if i+1 >= len(a) {
			return nil, bad("%s needs a value", a[i])
		}
		i++
		v := a[i]
		var n int64
		var err error
		if name != "workload" {
			if n, err = strconv.ParseInt(v, 10, 64); err != nil {
				return nil, bad("%s %q: want an integer", a[i-1], v)
			}
		}
		switch name {
		case "workload":
			k.Workload = v
		case "batch_size":
			k.BatchSize = int(n)
		case "value_size":
			k.ValueSize = int(n)
		case "num_threads_read":
			k.Readers = int(n)
		case "num_threads_write":
			k.Writers = int(n)
		case "num_unique_keys":
			k.UniqueKeys = n
		default:
			return nil, bad("argument %q is not one the kv profiles use", a[i-1])
		}
	}
	// The thread count the run asks for replaces the active side's, split
	// over the agents.
	for _, t := range []*int{&k.Readers, &k.Writers} {
		if *t == 0 {
			continue
		}
		n := int64(in.Params.Threads)
		if n <= 0 {
			n = int64(*t)
		}
		*t = threadsOf(n, in.Count, in.Index)
	}
	if in.DB.User != "" {
		k.User, k.Password, k.PasswordFile = in.DB.User, in.DB.Password, in.file(".password")
	}
	var err error
	if k.MetricsAddr, err = in.metricsAddr(); err != nil {
		return nil, err
	}
	return k, nil
}

// Args is yb-sample-apps' command line with ybload's own flags.
func (k *KV) Args() []string {
	a := []string{"kv", "--workload", k.Workload}
	if k.NoUUID {
		a = append(a, "--nouuid")
	}
	num := func(flag string, n int64) { a = append(a, flag, itoa(n)) }
	if k.BatchSize != 0 {
		num("--batch_size", int64(k.BatchSize))
	}
	if k.ValueSize != 0 {
		num("--value_size", int64(k.ValueSize))
	}
	num("--num_threads_read", int64(k.Readers))
	num("--num_threads_write", int64(k.Writers))
	if k.UniqueKeys != 0 {
		num("--num_unique_keys", k.UniqueKeys)
	}
	nodes := make([]string, len(k.Nodes))
	for i, n := range k.Nodes {
		nodes[i] = n.Addr + ":" + strconv.Itoa(n.Port)
	}
	a = append(a, "--nodes", strings.Join(nodes, ","))
	num("--num_writes", k.NumWrites)
	num("--num_reads", k.NumReads)
	num("--run_time", int64(k.RunTime/time.Second))
	a = append(a, "--ybload_records", k.RecordsFile, "--ybload_summary", k.SummaryFile, "--ybload_agent", k.Agent)
	if !k.StartAt.IsZero() {
		num("--ybload_start_at", k.StartAt.UnixMilli())
	}
	if k.TargetOpsPerSec > 0 {
		num("--ybload_target_ops_per_sec", k.TargetOpsPerSec)
	}
	if k.LateAfter > 0 {
		num("--ybload_late_after_ms", max(1, k.LateAfter.Milliseconds()))
	}
	if k.Warmup > 0 {
		num("--ybload_warmup_ms", k.Warmup.Milliseconds())
	}
	if k.MetricsAddr != "" {
		a = append(a, "--ybload_metrics_addr", k.MetricsAddr)
	}
	if k.AgentCount > 1 {
		// Alone, an agent's command line is yb-sample-apps' own.
		num("--ybload_agent_index", int64(k.AgentIndex))
		num("--ybload_agent_count", int64(k.AgentCount))
	}
	if k.User == "" {
		return a
	}
	// Authentication on: the user on the command line, the password in a
	// 0600 file beside the agent's other files.
	return append(a, "--username", k.User, "--ybload_password_file", k.PasswordFile)
}

// Files is the password file when authentication is on.
func (k *KV) Files() []File {
	if k.User == "" {
		return nil
	}
	return []File{secretFile(k.PasswordFile, k.Password)}
}
