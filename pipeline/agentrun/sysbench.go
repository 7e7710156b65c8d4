package agentrun

import (
	"strconv"
	"strings"
	"time"

	"github.com/ybbench/ybbench/internal/exitcode"
)

// Sysbench is one `ybload sysbench <workload> … <command>` invocation:
// each workload prepared by one agent, run, and cleaned up by one agent.
type Sysbench struct {
	Workload string // oltp_*
	Command  string // prepare, run or cleanup
	Tables   int
	// TableSize is the rows per table.
	TableSize int64
	Hosts     []string // the YSQL endpoints' addresses, on Port
	Port      int
	User      string
	Database  string
	// Password is given in PasswordFile (0600), never on the command line.
	Password     string
	PasswordFile string
	SummaryFile  string
	// Run: this agent's threads, the measured time after the warm-up, the
	// status interval, its tick records and its name in them, and the
	// instant every agent starts its warm-up at.
	Threads        int
	Time, Warmup   time.Duration
	ReportInterval time.Duration
	RecordsFile    string
	Agent          string
	StartAt        time.Time
	// Rate paces a sweep step (sysbench's --rate, this agent's share; 0:
	// a closed loop); a full event queue then ends the step where it is
	// (--ybload-queue-full=stop) instead of failing the sweep, and its
	// records say so. LateAfter is the late-start tolerance (0: the
	// agent's).
	Rate      int64
	LateAfter time.Duration
	// MetricsAddr is where the run's live metrics are served ("": off).
	MetricsAddr string
}

func buildSysbench(in Input) (*Sysbench, error) {
	if err := needEndpoints("YSQL", in.DB.YSQL); err != nil {
		return nil, err
	}
	switch in.Phase.Phase {
	case Prepare, Run, Cleanup:
	default:
		return nil, exitcode.Errorf(exitcode.Tool, "sysbench has no phase %q", in.Phase.Phase)
	}
	p := in.Params
	s := &Sysbench{Workload: in.Phase.Workload, Command: in.Phase.Phase, Tables: max(p.Tables, 1), TableSize: p.Records,
		Port: in.DB.YSQL[0].Port, User: in.DB.User, Database: in.DB.Database,
		Password: in.DB.Password, PasswordFile: in.file(".password"), SummaryFile: in.file(".json")}
	for _, e := range in.DB.YSQL {
		s.Hosts = append(s.Hosts, e.Addr)
	}
	if in.Phase.Phase == Run {
		s.Threads = threadsOf(int64(p.Threads), in.Count, in.Index)
		s.Time, s.Warmup = p.Duration.Truncate(time.Second), in.warmup()
		// The seeds' run_sysbench.sh reports every 10 seconds.
		s.ReportInterval = 10 * time.Second
		s.RecordsFile, s.Agent, s.StartAt = in.file(".jsonl"), in.Host, in.StartAt
		s.Rate, s.LateAfter = in.agentTarget(), in.LateAfter
		var err error
		if s.MetricsAddr, err = in.metricsAddr(); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// Args is sysbench's command line (the fork's option names), the
// range-partitioned tables of the seeds' setup.
func (s *Sysbench) Args() []string {
	secs := func(d time.Duration) string { return itoa(int64(d / time.Second)) }
	a := []string{"sysbench", s.Workload,
		"--tables=" + strconv.Itoa(s.Tables), "--table-size=" + itoa(s.TableSize),
		"--range_key_partitioning=true", "--db-driver=pgsql",
		"--pgsql-host=" + strings.Join(s.Hosts, ","), "--pgsql-port=" + strconv.Itoa(s.Port),
		"--pgsql-user=" + s.User, "--pgsql-db=" + s.Database,
		"--pgsql-password-file=" + s.PasswordFile,
		"--ybload-summary=" + s.SummaryFile}
	if s.Command == Run {
		a = append(a, "--threads="+strconv.Itoa(s.Threads), "--time="+secs(s.Time),
			"--warmup-time="+secs(s.Warmup), "--report-interval="+secs(s.ReportInterval),
			"--ybload-records="+s.RecordsFile, "--ybload-agent="+s.Agent)
		if !s.StartAt.IsZero() {
			a = append(a, "--ybload-start-at="+itoa(s.StartAt.UnixMilli()))
		}
		if s.Rate > 0 {
			a = append(a, "--rate="+itoa(s.Rate), "--ybload-queue-full=stop")
		}
		if s.LateAfter > 0 {
			a = append(a, "--ybload-late-after="+s.LateAfter.String())
		}
		if s.MetricsAddr != "" {
			a = append(a, "--ybload-metrics-addr="+s.MetricsAddr)
		}
	}
	return append(a, s.Command)
}

// Files is the password file.
func (s *Sysbench) Files() []File { return []File{secretFile(s.PasswordFile, s.Password)} }
