package pipeline

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/ybbench/ybbench/provision"
)

// family is how one profile family's workloads run on the agents: which
// phases each workload has, the agent's command line for a phase, and the
// private files it reads. The command line never holds a secret. (Its
// figures — throughput compared, Little's law — are collect's.)
type family interface {
	// phases of a workload, in order; the measured one is "run".
	phases(workload string) []string
	// firstClientOnly reports whether a phase runs on one client only
	// (table setup and cleanup).
	firstClientOnly(phase string) bool
	// invocation is one agent's arguments and private files (name →
	// content, uploaded 0600 to the agent's directory) for a phase.
	invocation(in agentInput) (args []string, files map[string]string)
}

// agentInput is everything an agent invocation is built from.
type agentInput struct {
	Profile   string
	Binding   string
	Phase     Phase
	Params    paramsView
	WLArgs    []string // the workload's own arguments (kv)
	Idx, N    int      // this agent among N
	Dir, Host string   // the agent's directory and name
	StartAt   time.Time
	Dep       *provision.Deployment
	Password  string
}

// paramsView is the resolved workload parameters.
type paramsView struct {
	Records, Operations  int64
	Threads, LoadThreads int
	Duration, Warmup     time.Duration
	DDL                  string
	Tables               int
}

func familyOf(name string) (family, error) {
	switch name {
	case "ycsb":
		return ycsbFamily{}, nil
	case "sysbench":
		return sysbenchFamily{}, nil
	case "kv":
		return kvFamily{}, nil
	}
	return nil, fmt.Errorf("unknown profile family %q", name)
}

func endpoints(eps []provision.Endpoint, withPort bool) string {
	out := make([]string, len(eps))
	for i, e := range eps {
		out[i] = e.Addr
		if withPort {
			out[i] = e.Addr + ":" + strconv.Itoa(e.Port)
		}
	}
	return strings.Join(out, ",")
}

// ycsbFamily: YCSB's load and run, each workload on a fresh table that the
// first agent creates.
type ycsbFamily struct{}

func (ycsbFamily) phases(string) []string         { return []string{"prepare", "load", "run"} }
func (ycsbFamily) firstClientOnly(ph string) bool { return ph == "prepare" }

func (ycsbFamily) invocation(in agentInput) ([]string, map[string]string) {
	p := in.Params
	threads := p.Threads
	if in.Phase.Phase == "load" {
		threads = p.LoadThreads
	}
	args := agentArgs(in.Binding, in.Phase, p.Records, p.Operations, threads, p.Duration, p.DDL, in.Idx, in.N, in.Dir, in.Host, in.StartAt)
	files := map[string]string{in.Phase.fileBase() + ".properties": ycsbProps(in)}
	if in.Binding == "ycql" && in.Dep.User != "" {
		files[ycqlPasswordFile(in)] = in.Password + "\n"
	}
	return args, files
}

// ycqlPasswordFile is the 0600 file, beside the agent's other files, that
// a YCQL agent reads the database password from: the password is never on
// a command line, in an environment or in a file the run keeps.
func ycqlPasswordFile(in agentInput) string { return in.Phase.fileBase() + ".password" }

// ycsbProps is the 0600 properties file a YCSB agent reads its connection from.
func ycsbProps(in agentInput) string {
	if in.Binding == "ycql" {
		port := 9042
		if len(in.Dep.YCQL) > 0 {
			port = in.Dep.YCQL[0].Port
		}
		props := fmt.Sprintf("# written by ybbench for this run\nhosts=%s\nport=%d\n", endpoints(in.Dep.YCQL, false), port)
		if in.Dep.User != "" {
			// A database with authentication on (the default): the user,
			// and where its password is.
			props += fmt.Sprintf("cassandra.username=%s\ncassandra.password.file=%s\n", in.Dep.User, filepath.Join(in.Dir, ycqlPasswordFile(in)))
		}
		return props
	}
	return agentProps(in.Dep.Flavor, in.Dep.YSQL, in.Dep.Database, in.Dep.User, in.Password)
}

// sysbenchFamily: each workload prepared (first agent), run, cleaned up.
type sysbenchFamily struct{}

func (sysbenchFamily) phases(string) []string { return []string{"prepare", "run", "cleanup"} }
func (sysbenchFamily) firstClientOnly(ph string) bool {
	return ph == "prepare" || ph == "cleanup"
}

func (sysbenchFamily) invocation(in agentInput) ([]string, map[string]string) {
	p := in.Params
	pwFile := in.Phase.fileBase() + ".password"
	args := []string{"sysbench", in.Phase.Workload,
		"--tables=" + strconv.Itoa(max(p.Tables, 1)), "--table-size=" + strconv.FormatInt(p.Records, 10),
		"--range_key_partitioning=true", "--db-driver=pgsql",
		"--pgsql-host=" + endpoints(in.Dep.YSQL, false), "--pgsql-port=" + strconv.Itoa(in.Dep.YSQL[0].Port),
		"--pgsql-user=" + in.Dep.User, "--pgsql-db=" + in.Dep.Database,
		"--pgsql-password-file=" + filepath.Join(in.Dir, pwFile),
		"--ybload-summary=" + filepath.Join(in.Dir, in.Phase.fileBase()+".json")}
	if in.Phase.Phase == "run" {
		_, t := split(int64(p.Threads), in.N, in.Idx)
		args = append(args, "--threads="+strconv.FormatInt(max(t, 1), 10), "--time="+strconv.FormatInt(int64(p.Duration/time.Second), 10),
			"--warmup-time="+strconv.FormatInt(int64(p.Warmup/time.Second), 10), "--report-interval=10",
			"--ybload-records="+filepath.Join(in.Dir, in.Phase.fileBase()+".jsonl"), "--ybload-agent="+in.Host)
	}
	return append(args, in.Phase.Phase), map[string]string{pwFile: in.Password + "\n"}
}

// kvFamily: each workload is one measured phase of yb-sample-apps' flags.
type kvFamily struct{}

func (kvFamily) phases(string) []string      { return []string{"run"} }
func (kvFamily) firstClientOnly(string) bool { return false }
func (kvFamily) invocation(in agentInput) ([]string, map[string]string) {
	p := in.Params
	args := append([]string{"kv"}, in.WLArgs...)
	// The thread count the run asks for replaces the active side's, split
	// over the agents.
	for i := 0; i+1 < len(args); i++ {
		if (args[i] == "--num_threads_write" || args[i] == "--num_threads_read") && args[i+1] != "0" {
			n := int64(p.Threads)
			if n <= 0 {
				n, _ = strconv.ParseInt(args[i+1], 10, 64)
			}
			_, t := split(n, in.N, in.Idx)
			args[i+1] = strconv.FormatInt(max(t, 1), 10)
		}
	}
	args = append(args, "--nodes", endpoints(in.Dep.YCQL, true), "--num_writes", "-1", "--num_reads", "-1",
		"--run_time", strconv.FormatInt(int64(p.Duration/time.Second), 10),
		"--ybload_records", filepath.Join(in.Dir, in.Phase.fileBase()+".jsonl"),
		"--ybload_summary", filepath.Join(in.Dir, in.Phase.fileBase()+".json"),
		"--ybload_agent", in.Host)
	if in.Dep.User == "" {
		return args, nil
	}
	// Authentication on: the user on the command line, the password in a
	// 0600 file beside the agent's other files.
	pw := ycqlPasswordFile(in)
	args = append(args, "--username", in.Dep.User, "--ybload_password_file", filepath.Join(in.Dir, pw))
	return args, map[string]string{pw: in.Password + "\n"}
}
