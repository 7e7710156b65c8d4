package kv

import (
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/ybbench/ybbench/bench/agentutil"
	"github.com/ybbench/ybbench/bench/livemetrics"
	"github.com/ybbench/ybbench/bench/ycql"
)

// setter lands a flag's value in the options: the default's, then the
// given one's. name is the flag's, for the error. An integer that is
// refused leaves its field as it was, so that the rules between flags
// judge the default rather than a value already reported.
type setter func(o *Options, name, val string) error

// intAtLeast lands an integer of at least min in the field that field
// picks. The bound is the reference's (a negative thread count is refused
// there too), or ybload's where -1 means "no limit".
func intAtLeast[T int | int64](min int64, field func(*Options) *T) setter {
	return func(o *Options, name, val string) error {
		n, err := parseAtLeast(name, val, min)
		if err != nil {
			return err
		}
		*field(o) = T(n)
		return nil
	}
}

// millisAtLeast lands a count of milliseconds of at least min as a
// duration, so that the rest of ybload never converts units.
func millisAtLeast(min int64, field func(*Options) *time.Duration) setter {
	return func(o *Options, name, val string) error {
		n, err := parseAtLeast(name, val, min)
		if err != nil {
			return err
		}
		*field(o) = time.Duration(n) * time.Millisecond
		return nil
	}
}

// parseAtLeast reads a flag's integer, refusing one below min.
func parseAtLeast(name, val string, min int64) (int64, error) {
	n, err := strconv.ParseInt(val, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("--%s %q: not an integer", name, val)
	}
	if n < min {
		return 0, fmt.Errorf("--%s %d: must be at least %d", name, n, min)
	}
	return n, nil
}

// discard is the field of a flag the reference checks but these workloads
// never read: checked as there, kept nowhere.
func discard(*Options) *int { return new(int) }

// switchOn lands a switch given (the parser gives every switch "true").
func switchOn(field func(*Options) *bool) setter {
	return func(o *Options, _, _ string) error {
		*field(o) = true
		return nil
	}
}

// text lands a value as given, empty included.
func text(field func(*Options) *string) setter {
	return func(o *Options, _, val string) error {
		*field(o) = val
		return nil
	}
}

// textOrDefault lands a value unless it is empty: as in the reference, an
// empty table or keyspace name means the default one.
func textOrDefault(field func(*Options) *string) setter {
	return func(o *Options, _, val string) error {
		if val != "" {
			*field(o) = val
		}
		return nil
	}
}

// setWorkload lands --workload and the batch size it implies, which a
// later --batch_size may change.
func setWorkload(o *Options, name, val string) error {
	o.Workload = val
	switch val {
	case WorkloadKV:
		o.BatchSize = 1
	case WorkloadBatchKV:
		o.BatchSize = DefaultBatchSize
	case "":
		return fmt.Errorf("--%s is required: %s", name, workloadChoice)
	default:
		return fmt.Errorf("--%s %s: ybload kv runs %s and %s", name, val, WorkloadKV, WorkloadBatchKV)
	}
	return nil
}

// setNodes lands the endpoints, which share one port as the reference's.
func setNodes(o *Options, _, val string) error {
	h, p, err := ycql.ParseNodes(val)
	o.Hosts, o.Port = h, p
	return err
}

// setBatchSize lands --batch_size for CassandraBatchKeyValue. The reference
// reads --batch_size for every app and refuses one above --num_unique_keys,
// but CassandraKeyValue writes one key a statement whatever it says: there
// the value is checked as the reference checks it and named as changing
// nothing.
func setBatchSize(o *Options, name, val string) error {
	if o.Workload != WorkloadKV {
		return intAtLeast(1, func(o *Options) *int { return &o.BatchSize })(o, name, val)
	}
	o.NoEffect = append(o.NoEffect, "--batch_size: no effect (CassandraKeyValue writes one key a statement)")
	batch, err := parseAtLeast(name, val, math.MinInt32)
	if err != nil {
		return err
	}
	if batch > o.UniqueKeys {
		return fmt.Errorf("--batch_size %d: the batch size cannot be more than --num_unique_keys %d, as the reference refuses", batch, o.UniqueKeys)
	}
	return nil
}

// setRunTime lands --run_time in seconds; -1 and 0 both mean no limit, as
// in the reference.
func setRunTime(o *Options, name, val string) error {
	s, err := parseAtLeast(name, val, -1)
	if err != nil {
		return err
	}
	if s > 0 {
		o.RunTime = time.Duration(s) * time.Second
	}
	return nil
}

// setDropTable lands --drop_table_name. As in the reference, the table
// dropped is the table the workload then creates and runs on.
func setDropTable(o *Options, _, val string) error {
	o.DropTable = val
	if val != "" {
		o.Table = val
	}
	return nil
}

// setSeed lands a given seed and marks it given, so that the time-based
// fallback is taken only when none is.
func setSeed(o *Options, name, val string) error {
	s, err := strconv.ParseUint(val, 10, 64)
	o.Seed, o.SeedSet = s, true
	if err != nil {
		return fmt.Errorf("--%s %q: want an unsigned integer", name, val)
	}
	return nil
}

// setFlavor lands the server flavour; empty keeps auto-detection.
func setFlavor(o *Options, name, val string) error {
	if val == "" {
		return nil
	}
	switch ycql.Flavor(val) {
	case ycql.FlavorAuto, ycql.FlavorYugabyte, ycql.FlavorCassandra:
	default:
		return fmt.Errorf("--%s %q: want auto, yugabytedb or cassandra", name, val)
	}
	o.Flavor = val
	return nil
}

// setPasswordFile reads the password from a 0600 file, so that it need not
// be on the command line. The file, when named, is the password's source:
// it replaces --password's, even with nothing when it cannot be read.
func setPasswordFile(o *Options, name, val string) error {
	if val == "" {
		return nil
	}
	pw, err := agentutil.ReadSecretFile(val)
	o.Password = pw
	if err != nil {
		return fmt.Errorf("--%s: %w", name, err)
	}
	return nil
}

// setStartAt lands the instant agents on several clients start together.
func setStartAt(o *Options, name, val string) error {
	at, err := agentutil.ParseStartAt(val)
	if err != nil {
		return fmt.Errorf("--%s %q: %w", name, val, err)
	}
	o.StartAt = at
	return nil
}

// setMetricsAddr lands where the live metrics are served.
func setMetricsAddr(o *Options, name, val string) error {
	a, err := livemetrics.ParseAddr(val)
	if err != nil {
		return fmt.Errorf("--%s %q: %w", name, val, err)
	}
	o.MetricsAddr = a
	return nil
}
