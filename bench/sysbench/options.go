package sysbench

import (
	"fmt"
	"time"
)

// Mode is the sysbench code line ybload behaves as.
type Mode int

// The modes (--compat).
const (
	// ModeFork is Yugabyte's fork of sysbench (yugabyte/sysbench 1.0.0-yb),
	// the one the YugabyteDB documents use: the default.
	ModeFork Mode = iota
	// Mode1020 is stock sysbench 1.0.20, as Debian packages it.
	Mode1020
)

// String is the --compat value of the mode.
func (m Mode) String() string {
	if m == Mode1020 {
		return "1.0.20"
	}
	return "yb"
}

// Workloads are the workload names, in the order of the fork's
// run_sysbench.sh (spec §11.2).
var Workloads = []string{
	"oltp_insert", "oltp_point_select", "oltp_write_only", "oltp_read_only",
	"oltp_read_write", "oltp_update_index", "oltp_update_non_index", "oltp_delete",
}

// Commands are the commands a workload takes. create and load are the fork's
// halves of prepare.
var Commands = []string{"prepare", "run", "cleanup", "help", "create", "load"}

// Options is a parsed sysbench command line.
type Options struct {
	Workload string
	Command  string
	Mode     Mode

	Hosts              []string
	Port               int
	User, DB, Password string
	PasswordSource     string // where the password came from (never the password)
	SSLMode            string

	Tables, TableSize, RangeSize                          int64
	PointSelects, SimpleRanges, SumRanges, OrderRanges    int64
	DistinctRanges, IndexUpdates, NonIndexUpdates         int64
	DeleteInserts                                         int64
	RangeSelects, AutoInc, CreateSecondary, SkipTrx       bool
	CreateTableOptions                                    string
	Reconnect, SerialCacheSize, NumTableSplits            int64
	RangeKeyPartitioning, ManualRangeSplitting            bool
	Threads                                               int
	Time, Events, Warmup, Rate, ReportInterval            int64
	ThreadInitTimeout                                     int64
	Percentile                                            int
	Histogram                                             bool
	Verbosity                                             int64
	RandType                                              string
	RandSpecIter                                          int64
	RandSpecPct, RandSpecRes, RandParetoH, RandZipfianExp float64
	RandSeed                                              uint64
	PSMode                                                string

	Records, Summary, Agent, CPUProfile string
	// Socket is how connections wait for the server: "poller" (Go's
	// network poller) or "blocking" (package blocksock).
	Socket string
	Grace  time.Duration
	// LateAfter is how far past its arrival an event must start to count
	// as late (with --rate); QueueFullStop makes a full event queue end the
	// run where it is, exit 0, instead of sysbench's fatal error: a sweep
	// step offered more than the database takes says so in its records
	// rather than failing the sweep.
	LateAfter     time.Duration
	QueueFullStop bool
	// StartAt is when the run starts (zero: at once): agents on several
	// clients are given the same instant.
	StartAt time.Time
	// MetricsAddr is where the run's live metrics are served ("": off).
	MetricsAddr string

	// Given holds the options given on the command line, canonical names,
	// with secrets masked.
	Given map[string]string
	// Warnings are sysbench's deprecation warnings, printed first.
	Warnings []string
	// Debug and Validate are --debug and --validate, which the header
	// reports as sysbench does.
	Debug, Validate bool
}

// parseMode reads --compat's value: the fork (the default) or 1.0.20.
func parseMode(compat string) (Mode, error) {
	switch compat {
	case "", "yb", "fork":
		return ModeFork, nil
	case "1.0.20":
		return Mode1020, nil
	}
	return ModeFork, fmt.Errorf("--compat=%s: want yb (Yugabyte's fork, the default) or 1.0.20", compat)
}
