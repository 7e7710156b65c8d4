package sysbench

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/ybbench/ybbench/bench/agentutil"
	"github.com/ybbench/ybbench/bench/livemetrics"
)

// The setters of the options whose value needs more than a field: the
// values ybload refuses because it cannot do what sysbench would, and the
// values that are converted or touch another option.

// errSecondary is why --secondary=on is refused.
var errSecondary = errors.New("--secondary=on: sysbench then declares `KEY xid (id)`, MySQL syntax that PostgreSQL and YugabyteDB reject")

// requirePgsqlDriver refuses every driver but pgsql: ybload has only the
// PostgreSQL wire protocol, which YSQL speaks.
func requirePgsqlDriver(_ *Options, driver string) error {
	if driver != "pgsql" {
		return fmt.Errorf("--db-driver=%s: ybload speaks the PostgreSQL wire protocol only: use --db-driver=pgsql", driver)
	}
	return nil
}

// refuseCheckpoints refuses --report-checkpoints: the tick records and
// --report-interval give what it would.
func refuseCheckpoints(_ *Options, v string) error {
	if v != "" {
		return fmt.Errorf("--report-checkpoints=%s: not supported by ybload (use --report-interval and the tick records)", v)
	}
	return nil
}

// refuseForcedShutdown refuses a forced shutdown: ybload cancels the events
// in flight at the end after --ybload-grace instead.
func refuseForcedShutdown(_ *Options, v string) error {
	if v != "" && v != "off" {
		return fmt.Errorf("--forced-shutdown=%s: not supported by ybload (events in flight at the end are cancelled after --ybload-grace)", v)
	}
	return nil
}

// landHosts splits the fork's comma-separated host list (one host in
// 1.0.20, checked in validate), dropping empty entries.
func landHosts(o *Options, list string) {
	for _, h := range strings.Split(list, ",") {
		if h = strings.TrimSpace(h); h != "" {
			o.Hosts = append(o.Hosts, h)
		}
	}
}

// landDebug is --debug, which raises the verbosity as sysbench's debug mode
// does (--verbosity lands before it).
func landDebug(o *Options, on bool) {
	o.Debug = on
	if on {
		o.Verbosity = max(o.Verbosity, 5)
	}
}

// landGrace reads how long events in flight at the end may take; zero
// would cancel every one of them.
func landGrace(o *Options, v string) error {
	g, err := time.ParseDuration(v)
	if err != nil || g <= 0 {
		return fmt.Errorf("--ybload-grace=%s: want a positive duration such as 10s", v)
	}
	o.Grace = g
	return nil
}

// landLateAfter reads the late-start tolerance of a paced run.
func landLateAfter(o *Options, v string) error {
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		return fmt.Errorf("--ybload-late-after=%s: want a positive duration such as 1ms", v)
	}
	o.LateAfter = d
	return nil
}

// landQueueFull reads what a full event queue does.
func landQueueFull(o *Options, v string) error {
	switch v {
	case "fatal":
		o.QueueFullStop = false
	case "stop":
		o.QueueFullStop = true
	default:
		return fmt.Errorf("--ybload-queue-full=%s: want fatal (sysbench's) or stop", v)
	}
	return nil
}

// landStartAt reads the instant agents on several clients start together.
// Without the option there is none; given empty, it is refused.
func landStartAt(o *Options, v string) error {
	at, err := agentutil.ParseStartAt(v)
	if err != nil {
		return fmt.Errorf("--ybload-start-at=%s: %v", v, err)
	}
	o.StartAt = at
	return nil
}

// landMetricsAddr reads where the live metrics are served. Without the
// option there are none; given empty, it is refused.
func landMetricsAddr(o *Options, v string) error {
	a, err := livemetrics.ParseAddr(v)
	if err != nil {
		return fmt.Errorf("--ybload-metrics-addr=%s: %v", v, err)
	}
	o.MetricsAddr = a
	return nil
}

// landSocket reads how connections wait for the server.
func landSocket(o *Options, v string) error {
	o.Socket = v
	switch v {
	case "poller", "blocking":
		return nil
	}
	return fmt.Errorf("--ybload-socket=%s: want poller or blocking", v)
}
