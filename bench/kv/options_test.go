package kv

import (
	"bytes"
	"context"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/gocql/gocql"
	"github.com/ybbench/ybbench/bench/ycql"
)

// The seed's three command lines parse with `java -jar yb-sample-apps.jar`
// replaced by `ybload kv`, with today's defaults where they pass none.
func TestSeedCommandLines(t *testing.T) {
	nodes := "10.0.0.1:9042,10.0.0.2:9042,10.0.0.3:9042"
	o, err := ParseArgs(strings.Fields("--workload CassandraKeyValue --nodes "+nodes+
		" --nouuid --value_size 256 --num_threads_read 0 --num_threads_write 256 --num_unique_keys 1000000000"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if o.UUID != "key" || o.ValueSize != 256 || o.Readers != 0 || o.Writers != 256 || o.UniqueKeys != 1_000_000_000 ||
		o.NumWrites != DefaultNumWrites || o.NumReads != DefaultNumReads || o.BatchSize != 1 || len(o.Hosts) != 3 || o.Port != 9042 ||
		o.RunTime != 0 || o.Stagger != 50*time.Millisecond || o.Keyspace != "ybdemo_keyspace" || o.Table != "CassandraKeyValue" {
		t.Errorf("write-heavy: %+v", o)
	}
	c := o.CQLConfig()
	if c.Consistency != gocql.Quorum || c.ConnsPerHost != 4 || !c.Retry.Idempotent || c.Retry.Max != 1 || c.ReadTimeout != 12*time.Second {
		t.Errorf("CQL config %+v", c)
	}
	o, err = ParseArgs(strings.Fields("--workload CassandraBatchKeyValue --nodes "+nodes+
		" --nouuid --batch_size 25 --value_size 256 --num_threads_read 0 --num_threads_write 64 --num_unique_keys 1000000000 --num_writes -1 --run_time 60"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if o.BatchSize != 25 || o.Writers != 64 || o.NumWrites != -1 || o.RunTime != time.Minute {
		t.Errorf("batch: %+v", o)
	}
	if o.TargetOpsPerSec != 0 || o.LateAfter != time.Millisecond {
		t.Errorf("batch: a closed loop by default, late after 1ms: %+v", o)
	}
	o, err = ParseArgs(strings.Fields("--workload CassandraBatchKeyValue --nodes h:9042 --ybload_target_ops_per_sec 1500 --ybload_late_after_ms 20"), nil)
	if err != nil || o.TargetOpsPerSec != 1500 || o.LateAfter != 20*time.Millisecond {
		t.Errorf("paced: %+v %v", o, err)
	}
	o, err = ParseArgs(strings.Fields("--workload CassandraBatchKeyValue --nodes h:9042"), nil)
	if err != nil || o.BatchSize != 10 || o.Readers != 24 || o.Writers != 2 || o.UUID != "" {
		t.Errorf("batch defaults: %+v %v", o, err)
	}
}

func TestBadFlags(t *testing.T) {
	for _, c := range []struct{ args, want string }{
		{"--workload CassandraKeyValue --nodes h:9042 --value_size -1", "--value_size -1: must be at least 0"},
		{"--workload CassandraKeyValue --nodes h", `--nodes entry "h": want host:port`},
		{"--workload CassandraKeyValue --nodes h:9042,g:9043", "same port"},
		{"--workload CassandraKeyValue", "--nodes is required"},
		{"--nodes h:9042", "--workload is required"},
		{"--workload SqlInserts --nodes h:9042", "CassandraKeyValue and CassandraBatchKeyValue"},
		{"--workload CassandraKeyValue --nodes h:9042 --num_writes x", `--num_writes "x": not an integer`},
		{"--workload CassandraKeyValue --nodes h:9042 --frobnicate", "unknown flag --frobnicate"},
		{"--workload CassandraKeyValue --nodes h:9042 --write_rate 10", "not supported by ybload"},
		{"--workload CassandraKeyValue --nodes h:9042 --ybload_target_ops_per_sec 0", "--ybload_target_ops_per_sec 0: must be at least 1"},
		{"--workload CassandraKeyValue --nodes h:9042 --ybload_late_after_ms 0", "--ybload_late_after_ms 0: must be at least 1"},
		{"--workload CassandraKeyValue --nodes h:9042 --read_only", "--read_only needs --uuid or --nouuid"},
		{"--workload CassandraKeyValue --nodes h:9042 --username u", "needs a password"},
		{"--workload CassandraBatchKeyValue --nodes h:9042 --num_unique_keys 5 --batch_size 10", "larger than --num_unique_keys"},
		{"--workload CassandraKeyValue --nodes h:9042 --num_threads_read 0 --num_threads_write 0", "no threads"},
		{"--workload CassandraKeyValue --nodes h:9042 --skip_workload", "--drop_table_name) is expected"},
		{"--workload CassandraKeyValue --nodes h:9042 --password p", "--password requires --username"},
		{"--workload CassandraKeyValue --nodes h:9042 --create_table_name a --drop_table_name b", "cannot be provided together"},
		{"--workload CassandraKeyValue --nodes h:9042 --keep_table --drop_table_name b", "--keep_table and --drop_table_name"},
		{"--workload CassandraKeyValue --nodes h:9042 --with_local_dc dc1 --disable_yb_load_balancing_policy", "cannot be used with --with_local_dc"},
		{"--workload CassandraKeyValue --nodes h:9042 --num_unique_keys 3 --batch_size 5", "cannot be more than --num_unique_keys 3"},
		{"--workload CassandraKeyValue --nodes h:9042 --ybload_token_aware --disable_yb_load_balancing_policy", "exclude each other"},
		{"--workload CassandraKeyValue --nodes h:9042 --ybload_flavor oracle", "oracle"},
		{"--workload CassandraKeyValue --nodes", "needs a value"},
		{"--workload CassandraKeyValue --nodes h:9042 --num_unique_keys 3 --max_written_key 5", "must be below --num_unique_keys 3"},
		{"--workload CassandraKeyValue --nodes h:9042 --ybload_start_at soon", `--ybload_start_at "soon": want Unix milliseconds`},
		{"--workload CassandraKeyValue --nodes h:9042 --ybload_start_at=", `--ybload_start_at "": want Unix milliseconds`},
		{"--workload CassandraKeyValue --nodes h:9042 --ybload_metrics_addr 9464", `--ybload_metrics_addr "9464": want HOST:PORT`},
		{"--workload CassandraKeyValue --nodes h:9042 --ybload_metrics_addr=h:99999", `--ybload_metrics_addr "h:99999": port "99999": want a number`},
		{"--workload CassandraKeyValue --nodes h:9042 --ybload_metrics_addr", "needs a value"},
	} {
		_, err := ParseArgs(strings.Fields(c.args), nil)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err %v, want %q", c.args, err, c.want)
		}
	}
}

func TestPasswordNeverNeedsTheCommandLine(t *testing.T) {
	env := func(k string) string {
		if k == "YBLOAD_YCQL_PASSWORD" {
			return "pw"
		}
		return ""
	}
	o, err := ParseArgs(strings.Fields("--workload CassandraKeyValue --nodes h:9042 --username cassandra"), env)
	if err != nil || o.Password != "pw" {
		t.Fatalf("%v %q", err, o.Password)
	}
	o, err = ParseArgs(strings.Fields("--workload CassandraKeyValue --nodes h:9042 --username cassandra --password=s"), env)
	if err != nil || o.Password != "s" || o.Set["password"] != "****" {
		t.Fatalf("%v %q %q", err, o.Password, o.Set["password"])
	}
}

func TestDDL(t *testing.T) {
	if got := TableCQL("CassandraKeyValue", -1); got != "CREATE TABLE IF NOT EXISTS CassandraKeyValue (k varchar, v blob, primary key (k));" {
		t.Errorf("table %q", got)
	}
	if got := TableCQL("T", 60); got != "CREATE TABLE IF NOT EXISTS T (k varchar, v blob, primary key (k)) WITH default_time_to_live = 60;" {
		t.Errorf("table with TTL %q", got)
	}
	if got := KeyspaceCQL("ybdemo_keyspace", 1); got != "CREATE KEYSPACE IF NOT EXISTS ybdemo_keyspace WITH REPLICATION = {'class': 'SimpleStrategy', 'replication_factor' : 1};" {
		t.Errorf("keyspace %q", got)
	}
	if insertCQL("CassandraKeyValue") != "INSERT INTO CassandraKeyValue (k, v) VALUES (?, ?);" || selectCQL("CassandraKeyValue") != "SELECT k, v FROM CassandraKeyValue WHERE k = ?;" {
		t.Error("statements")
	}
}

// Flags the reference accepts without effect on these apps are accepted and
// named, not silently dropped.
func TestNoEffectFlagsAreNamed(t *testing.T) {
	o, err := ParseArgs(strings.Fields("--workload CassandraKeyValue --nodes h:9042 --ssl_key k.pem --truncate"), nil)
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(o.NoEffect, "\n")
	if len(o.NoEffect) != 2 || !strings.Contains(got, "--ssl_key: no effect") || !strings.Contains(got, "--truncate: no effect") {
		t.Fatalf("NoEffect = %q", o.NoEffect)
	}
}

// --ybload_start_at takes the orchestrator's Unix milliseconds or an RFC
// 3339 time; without it there is no start time, so the workload starts as
// yb-sample-apps' does.
func TestStartAt(t *testing.T) {
	want := time.Date(2023, 11, 14, 22, 13, 20, 123e6, time.UTC)
	for _, a := range [][]string{{"--ybload_start_at", "1700000000123"}, {"--ybload_start_at=2023-11-14T22:13:20.123Z"}} {
		o, err := ParseArgs(append([]string{"--workload", "CassandraKeyValue", "--nodes", "h:9042"}, a...), nil)
		if err != nil || !o.StartAt.Equal(want) {
			t.Errorf("%q: start at %v, %v; want %v", a, o.StartAt, err, want)
		}
	}
	o, err := ParseArgs([]string{"--workload", "CassandraKeyValue", "--nodes", "h:9042"}, nil)
	if err != nil || !o.StartAt.IsZero() {
		t.Errorf("no --ybload_start_at: start at %v, %v; want none", o.StartAt, err)
	}
}

// A bad start time is bad input: exit 2, naming the flag, before any
// connection is tried (nothing listens on port 1).
func TestMainBadStartAtExits2(t *testing.T) {
	var out, errb bytes.Buffer
	code := Main(context.Background(), []string{"--workload", "CassandraKeyValue", "--nodes", "127.0.0.1:1", "--ybload_start_at", "noon"},
		&Env{Stdout: &out, Stderr: &errb, Version: "test"})
	if code != 2 || !strings.Contains(errb.String(), "--ybload_start_at \"noon\"") {
		t.Errorf("exit %d, stderr %q; want 2 naming --ybload_start_at", code, errb.String())
	}
}

// --ybload_metrics_addr takes HOST:PORT, kept in canonical form; without
// it the live metrics are off (malformed values: TestBadFlags).
func TestMetricsAddr(t *testing.T) {
	for _, a := range [][]string{{"--ybload_metrics_addr", "10.0.0.5:09464"}, {"--ybload_metrics_addr=10.0.0.5:9464"}} {
		o, err := ParseArgs(append([]string{"--workload", "CassandraKeyValue", "--nodes", "h:9042"}, a...), nil)
		if err != nil || o.MetricsAddr != "10.0.0.5:9464" {
			t.Errorf("%q: %q, %v", a, o.MetricsAddr, err)
		}
	}
	o, err := ParseArgs([]string{"--workload", "CassandraKeyValue", "--nodes", "h:9042"}, nil)
	if err != nil || o.MetricsAddr != "" {
		t.Errorf("no --ybload_metrics_addr: %q, %v; want off", o.MetricsAddr, err)
	}
}

// A metrics port another process holds is refused: exit 2, naming the
// flag and the port in use, before any connection is tried (nothing
// listens on port 1).
func TestMainMetricsPortInUseExits2(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var out, errb bytes.Buffer
	code := Main(context.Background(), []string{"--workload", "CassandraKeyValue", "--nodes", "127.0.0.1:1", "--ybload_metrics_addr", ln.Addr().String()},
		&Env{Stdout: &out, Stderr: &errb, Version: "test"})
	if code != 2 || !strings.Contains(errb.String(), "--ybload_metrics_addr "+ln.Addr().String()) || !strings.Contains(errb.String(), "the port is in use") {
		t.Errorf("exit %d, stderr %q; want 2 naming --ybload_metrics_addr and the port in use", code, errb.String())
	}
}

// --drop_table_name names the table the workload runs on; --batch_size is
// accepted by CassandraKeyValue and changes nothing; --ybload_token_aware
// selects gocql's token-aware routing.
func TestDropTableAndBatchSizeOfCassandraKeyValue(t *testing.T) {
	o, err := ParseArgs(strings.Fields("--workload CassandraKeyValue --nodes h:9042 --drop_table_name Old --batch_size 7 --ybload_token_aware"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if o.Table != "Old" || o.DropTable != "Old" || o.BatchSize != 1 || !strings.Contains(strings.Join(o.NoEffect, "\n"), "--batch_size: no effect") {
		t.Errorf("table %q drop %q batch %d notes %v", o.Table, o.DropTable, o.BatchSize, o.NoEffect)
	}
	if c := o.CQLConfig(); c.Routing != ycql.RoutingTokenAware {
		t.Errorf("routing %q", c.Routing)
	}
	o, err = ParseArgs(strings.Fields("--workload CassandraKeyValue --nodes h:9042 --skip_workload --drop_table_name x --num_threads_read 0 --num_threads_write 0"), nil)
	if err != nil || !o.SkipWorkload || o.Table != "x" {
		t.Errorf("skip workload: %+v %v", o, err)
	}
}
