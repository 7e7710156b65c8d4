package main

import (
	"bytes"
	"strings"
	"testing"
)

// The README's refusal lists, through the command line as a user types it:
// each option it says is not supported exits 2 with a message naming the
// option, before any database is reached (none is given a reachable one).
func TestREADMERefusals(t *testing.T) {
	ycsbRun := func(p ...string) []string {
		args := []string{"run", "null", "-P", "workloads/workloada", "-p", "recordcount=10", "-p", "operationcount=10"}
		for _, x := range p {
			args = append(args, "-p", x)
		}
		return args
	}
	kvRun := func(extra ...string) []string {
		return append([]string{"kv", "--workload", "CassandraKeyValue", "--nodes", "127.0.0.1:1", "--num_writes", "10", "--num_reads", "10"}, extra...)
	}
	sbRun := func(opt string) []string {
		return []string{"sysbench", "oltp_read_only", "--pgsql-host=127.0.0.1", "--pgsql-port=1", opt, "run"}
	}
	for _, c := range []struct {
		name string
		args []string
		says string // what the message must name
	}{
		{"ycsb measurementtype=histogram", ycsbRun("measurementtype=histogram"), "measurementtype"},
		{"ycsb measurementtype=timeseries", ycsbRun("measurementtype=timeseries"), "measurementtype"},
		{"ycsb measurementtype=hdrhistogram+histogram", ycsbRun("measurementtype=hdrhistogram+histogram"), "measurementtype"},
		{"ycsb reportlatencyforeacherror", ycsbRun("reportlatencyforeacherror=true"), "reportlatencyforeacherror"},
		{"ycsb latencytrackederrors", ycsbRun("latencytrackederrors=UNEXPECTED_STATE"), "latencytrackederrors"},
		{"ycsb hdrhistogram.fileoutput", ycsbRun("hdrhistogram.fileoutput=true"), "hdrhistogram.fileoutput"},
		{"ycsb measurement.trackjvm", ycsbRun("measurement.trackjvm=true"), "measurement.trackjvm"},
		{"ycql cassandra.tracing", []string{"run", "ycql", "-P", "workloads/workloada", "-p", "hosts=127.0.0.1", "-p", "port=1", "-p", "cassandra.tracing=true"}, "cassandra.tracing"},
		{"kv --read_rate", kvRun("--read_rate", "100"), "--read_rate"},
		{"kv --write_rate", kvRun("--write_rate", "100"), "--write_rate"},
		{"kv --lock_step", kvRun("--lock_step"), "--lock_step"},
		{"kv --output_json_metrics", kvRun("--output_json_metrics"), "--output_json_metrics"},
		{"kv --report_read_restarts", kvRun("--report_read_restarts"), "--report_read_restarts"},
		{"sysbench --secondary=on", sbRun("--secondary=on"), "--secondary"},
		{"sysbench --report-checkpoints", sbRun("--report-checkpoints=10"), "--report-checkpoints"},
		{"sysbench --forced-shutdown", sbRun("--forced-shutdown=on"), "--forced-shutdown"},
		{"sysbench --db-driver=mysql", sbRun("--db-driver=mysql"), "--db-driver"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			code := realMain(c.args, &out, &errb)
			if code != 2 || !strings.Contains(messages(errb.String()), c.says) {
				t.Errorf("ybload %s: exit %d, want 2 and a message naming %s:\n%s", strings.Join(c.args, " "), code, c.says, errb.String())
			}
		})
	}
}

// messages is stderr without the echoed command line, which names every
// option given whether it is refused or not.
func messages(stderr string) string {
	var kept []string
	for _, l := range strings.Split(stderr, "\n") {
		if !strings.HasPrefix(l, "Command line:") {
			kept = append(kept, l)
		}
	}
	return strings.Join(kept, "\n")
}
