package agentrun

import (
	"math"
	"net"
	"path"
	"strconv"
	"time"

	"github.com/ybbench/ybbench/internal/exitcode"
	"github.com/ybbench/ybbench/profiles"
	"github.com/ybbench/ybbench/provision"
)

// Invocation is one agent's run of one phase: its command line (never a
// secret on it) and the private files it reads, uploaded 0600 before it
// starts.
type Invocation interface {
	// Args is the agent's command line, without the program name.
	Args() []string
	// Files are the private files, by their path on the client host.
	Files() []File
}

// File is a private file an invocation reads.
type File struct {
	Path    string
	Content string
}

// Params are the resolved workload parameters of the run: the profile's,
// with the run's overrides in (DDL is YCSB over YSQL's range or hash;
// Tables is sysbench's).
type Params = profiles.Parameters

// DB is how the agents reach the database: its endpoints and credentials
// (User empty: authentication off).
type DB struct {
	YSQL, YCQL []provision.Endpoint
	Database   string
	User       string
	Password   string
}

// Input is everything an invocation is built from.
type Input struct {
	Family  string // ycsb, sysbench, kv
	Binding string // the YCSB binding: ysql or ycql
	Phase   Phase
	Params  Params
	// WorkloadArgs are the profile's own arguments for the workload (kv).
	WorkloadArgs []string
	// Index is this agent among Count running the phase.
	Index, Count int
	// Dir is the agent's directory on its host (Dir(h)); Host its name;
	// Addr its private address (cluster.json's private_ip), where its
	// live metrics are served.
	Dir, Host, Addr string
	// StartAt is the wall-clock instant the agents of a phase start at.
	StartAt time.Time
	DB      DB
	// Properties are the spec's agent_properties: extra YCSB properties for
	// the load and run phases, {workload}, {phase} and {repetition} (r<k>,
	// or nothing without repetitions) in values replaced.
	Properties map[string]string
	// TargetOpsPerSec is a sweep step's total target rate (0: none), which
	// the agents share evenly.
	TargetOpsPerSec float64
	// LateAfter is how far past its intended start a paced operation must
	// start to count as late (0: the agent's default, 1 ms).
	LateAfter time.Duration
	// StepWarmup is a sweep step's warm-up at its rate before its measured
	// time (see warmup).
	StepWarmup time.Duration
	// MetricsPort is the port the agents serve their live metrics on, at
	// their host's Addr (0: off).
	MetricsPort int
}

// metricsAddr is where the agent serves its live metrics ("": off): the
// run's metrics_addr port at the host's private address, on the phases
// that measure (load and run; prepare and cleanup measure nothing).
func (in Input) metricsAddr() (string, error) {
	if in.MetricsPort == 0 || !in.Phase.Records() {
		return "", nil
	}
	if in.Addr == "" {
		return "", exitcode.Errorf(exitcode.Config, "metrics_addr: client %s has no private address to serve the metrics on", in.Host)
	}
	return net.JoinHostPort(in.Addr, strconv.Itoa(in.MetricsPort)), nil
}

// warmup is the run phase's warm-up: a sweep step's own, else the
// profile's, which only sysbench has (YCSB and yb-sample-apps have none, so
// a profile's warmup never reaches their agents).
func (in Input) warmup() time.Duration {
	if in.Phase.Sweep > 0 {
		return in.StepWarmup.Truncate(time.Second)
	}
	if in.Family != "sysbench" {
		return 0
	}
	return in.Params.Warmup.Truncate(time.Second)
}

// agentTarget is this agent's share of the phase's target rate, whole
// operations a second and at least one (0: the phase is not paced).
func (in Input) agentTarget() int64 {
	if in.TargetOpsPerSec <= 0 || in.Phase.Phase != Run {
		return 0
	}
	return max(1, int64(math.Round(in.TargetOpsPerSec/float64(in.Count))))
}

func (in Input) file(ext string) string { return path.Join(in.Dir, in.Phase.FileBase()+ext) }

// Build makes the invocation of in's family.
func Build(in Input) (Invocation, error) {
	if in.Count < 1 || in.Index < 0 || in.Index >= in.Count {
		return nil, exitcode.Errorf(exitcode.Tool, "agent %d of %d", in.Index, in.Count)
	}
	if in.Family != "ycsb" && len(in.Properties) > 0 {
		return nil, exitcode.Errorf(exitcode.Config, "agent_properties are YCSB properties: the %s family takes none", in.Family)
	}
	switch in.Family {
	case "ycsb":
		return buildYCSB(in)
	case "sysbench":
		return buildSysbench(in)
	case "kv":
		return buildKV(in)
	}
	return nil, exitcode.Errorf(exitcode.Config, "unknown profile family %q", in.Family)
}

// secretFile is a password file for the agent, "" content when there is no
// password to give.
func secretFile(p, password string) File { return File{Path: p, Content: password + "\n"} }

func needEndpoints(kind string, eps []provision.Endpoint) error {
	if len(eps) == 0 {
		return exitcode.Errorf(exitcode.Provision, "the deployment has no %s endpoint", kind)
	}
	return nil
}
