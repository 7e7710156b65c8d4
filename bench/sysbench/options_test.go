package sysbench

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func parse(t *testing.T, args ...string) *Options {
	t.Helper()
	o, err := ParseArgs(args, nil, nil)
	if err != nil {
		t.Fatalf("ParseArgs(%q): %v", args, err)
	}
	return o
}

func TestDefaultsPerMode(t *testing.T) {
	fork := parse(t, "oltp_read_write", "run")
	old := parse(t, "oltp_read_write", "--compat=1.0.20", "run")
	for _, c := range []struct {
		name      string
		got, want any
	}{
		{"fork rand-type", fork.RandType, "uniform"},
		{"1.0.20 rand-type", old.RandType, "special"},
		{"fork serial cache", fork.SerialCacheSize, int64(1000)},
		{"1.0.20 serial cache", old.SerialCacheSize, int64(0)},
		{"tables", fork.Tables, int64(1)},
		{"table size", fork.TableSize, int64(10000)},
		{"range size", fork.RangeSize, int64(100)},
		{"point selects", fork.PointSelects, int64(10)},
		{"time", fork.Time, int64(10)},
		{"threads", fork.Threads, 1},
		{"percentile", fork.Percentile, 95},
		{"port", fork.Port, 5432},
		{"user", fork.User, "sbtest"},
		{"db", fork.DB, "sbtest"},
		{"host", strings.Join(fork.Hosts, ","), "localhost"},
		{"auto_inc", fork.AutoInc, true},
		{"range selects", fork.RangeSelects, true},
		{"skip_trx", fork.SkipTrx, false},
		{"splits", fork.NumTableSplits, int64(24)},
		{"ps mode", fork.PSMode, "auto"},
		{"mode", old.Mode, Mode1020},
		{"socket", fork.Socket, "poller"},
		{"socket blocking", parse(t, "oltp_read_write", "--ybload-socket=blocking", "run").Socket, "blocking"},
		{"late after", fork.LateAfter, time.Millisecond},
		{"late after given", parse(t, "oltp_read_write", "--ybload-late-after=20ms", "run").LateAfter, 20 * time.Millisecond},
		{"queue full", fork.QueueFullStop, false},
		{"queue full stop", parse(t, "oltp_read_write", "--ybload-queue-full=stop", "run").QueueFullStop, true},
	} {
		if c.got != c.want {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
}

func TestOptionSpellingsAndPositions(t *testing.T) {
	// Dashes and underscores are the same option; options go anywhere;
	// a bare boolean means on; a path to the script names the workload.
	o := parse(t, "--table-size=500", "/usr/share/sysbench/oltp_delete.lua", "--range_key_partitioning", "--skip-trx=on",
		"--pgsql-host=a,b,c", "prepare", "--rand_type=pareto")
	if o.TableSize != 500 || !o.RangeKeyPartitioning || !o.SkipTrx || o.Workload != "oltp_delete" || o.Command != "prepare" ||
		len(o.Hosts) != 3 || o.RandType != "pareto" {
		t.Fatalf("parsed %+v", o)
	}
}

func TestPasswordSources(t *testing.T) {
	env := map[string]string{"PGPASSWORD": "pg", "YBLOAD_YSQL_PASSWORD": "yb"}
	getenv := func(k string) string { return env[k] }
	file := func(string) (string, error) { return "fromfile", nil }
	for _, c := range []struct {
		args       []string
		pw, source string
	}{
		{[]string{"--pgsql-password=flag"}, "flag", "--pgsql-password"},
		{[]string{"--pgsql-password-file=/x"}, "fromfile", "--pgsql-password-file"},
		{nil, "yb", "$YBLOAD_YSQL_PASSWORD"},
	} {
		o, err := ParseArgs(append([]string{"oltp_insert", "run"}, c.args...), getenv, file)
		if err != nil {
			t.Fatal(err)
		}
		if o.Password != c.pw || o.PasswordSource != c.source {
			t.Errorf("%v: password %q from %q, want %q from %q", c.args, o.Password, o.PasswordSource, c.pw, c.source)
		}
	}
	delete(env, "YBLOAD_YSQL_PASSWORD")
	o, _ := ParseArgs([]string{"oltp_insert", "run"}, getenv, file)
	if o.Password != "pg" {
		t.Errorf("PGPASSWORD not used: %q", o.Password)
	}
	o, _ = ParseArgs([]string{"oltp_insert", "run", "--pgsql-password=secret"}, getenv, file)
	if o.Given["pgsql_password"] != "****" {
		t.Errorf("password not masked in Given: %q", o.Given["pgsql_password"])
	}
	_, err := ParseArgs([]string{"oltp_insert", "run", "--pgsql-password-file=/x"}, getenv,
		func(string) (string, error) { return "", errors.New("readable by others (mode 0644): make it 0600") })
	if err == nil || !strings.Contains(err.Error(), "0600") {
		t.Errorf("an unsafe password file must be refused, got %v", err)
	}
}

func TestBadInput(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"oltp_nothing", "run"}, "unknown workload"},
		{[]string{"oltp_read_write", "go"}, "unknown command"},
		{[]string{"oltp_read_write"}, "missing the command"},
		{nil, "missing the workload"},
		{[]string{"oltp_read_write", "run", "--bogus=1"}, "invalid option: --bogus=1"},
		{[]string{"oltp_read_write", "run", "--tables=0"}, "--tables=0: must be at least 1"},
		{[]string{"oltp_read_write", "run", "--table-size=x"}, "--table-size=x: not an integer"},
		{[]string{"oltp_read_write", "run", "--threads=1.5"}, "--threads=1.5: not an integer"},
		{[]string{"oltp_read_write", "run", "--range_selects=maybe"}, "want on or off"},
		{[]string{"oltp_read_write", "run", "--time"}, "needs a value"},
		{[]string{"oltp_read_write", "run", "--events=-1"}, "must not be negative"},
		{[]string{"oltp_read_write", "run", "--rand-type=gaussian"}, "refused in fork mode"},
		{[]string{"oltp_read_write", "run", "--rand-type=special"}, "no special distribution"},
		{[]string{"oltp_read_write", "run", "--rand-type=zipfian", "--compat=1.0.20"}, "no zipfian"},
		{[]string{"oltp_read_write", "run", "--warmup-time=5", "--compat=1.0.20"}, "invalid option: --warmup-time=5"},
		{[]string{"oltp_read_write", "run", "--rand-spec-pct=5"}, "sysbench 1.0.20 only"},
		{[]string{"oltp_read_write", "run", "--db-driver=mysql"}, "--db-driver=mysql"},
		{[]string{"oltp_read_write", "run", "--secondary=on"}, "KEY xid"},
		{[]string{"oltp_read_write", "run", "--compat=2.0"}, "--compat=2.0"},
		{[]string{"oltp_read_write", "run", "--pgsql-host=a,b", "--compat=1.0.20"}, "one host"},
		{[]string{"oltp_read_write", "run", "--report-checkpoints=10"}, "not supported"},
		{[]string{"oltp_read_write", "run", "--percentile=101"}, "--percentile=101"},
		{[]string{"oltp_read_write", "run", "--percentile=0", "--histogram"}, "--histogram cannot be used with --percentile=0"},
		{[]string{"oltp_read_write", "run", "--luajit-cmd=off", "--compat=1.0.20"}, "invalid option: --luajit-cmd=off"},
		{[]string{"oltp_read_write", "run", "--num-threads=x"}, "--num-threads=x: not an integer"},
		{[]string{"oltp_read_write", "run", "--config-file=/nonexistent/sb.conf"}, "--config-file=/nonexistent/sb.conf"},
		{[]string{"oltp_read_write", "run", "extra", "arg"}, "unexpected argument"},
		{[]string{"oltp_read_write", "run", "--secondary=maybe"}, "--secondary=maybe: want on or off"},
		{[]string{"oltp_read_write", "run", "--threads=70368744177664"}, "--threads=70368744177664: must be at most 100000"},
		{[]string{"oltp_read_write", "run", "--time=9300000000"}, "--time=9300000000: must be at most"},
		{[]string{"oltp_read_write", "run", "--warmup-time=99999999999999"}, "--warmup-time=99999999999999: must be at most"},
		{[]string{"oltp_read_write", "run", "--rand-seed=-1"}, "--rand-seed=-1: must not be negative"},
		{[]string{"oltp_read_write", "run", "--pgsql-sslmode=bogus"}, "--pgsql-sslmode=bogus: want disable"},
		{[]string{"oltp_read_write", "run", "--pgsql-port=0"}, "--pgsql-port=0: must be at least 1"},
		{[]string{"oltp_read_write", "run", "--ybload-start-at=soon"}, "--ybload-start-at=soon: want Unix milliseconds"},
		{[]string{"oltp_read_write", "run", "--ybload_start_at="}, "--ybload-start-at=: want Unix milliseconds"},
		{[]string{"oltp_read_write", "run", "--ybload-socket=epoll"}, "--ybload-socket=epoll: want poller or blocking"},
		{[]string{"oltp_read_write", "run", "--ybload-metrics-addr=9464"}, "--ybload-metrics-addr=9464: want HOST:PORT"},
		{[]string{"oltp_read_write", "run", "--ybload_metrics_addr=127.0.0.1:http"}, "--ybload-metrics-addr=127.0.0.1:http: port \"http\": want a number"},
		{[]string{"oltp_read_write", "run", "--ybload-metrics-addr="}, "--ybload-metrics-addr=: want HOST:PORT"},
		{[]string{"oltp_read_write", "run", "--ybload-late-after=0s"}, "--ybload-late-after=0s: want a positive duration"},
		{[]string{"oltp_read_write", "run", "--ybload-queue-full=drop"}, "--ybload-queue-full=drop: want fatal (sysbench's) or stop"},
	} {
		_, err := ParseArgs(c.args, nil, nil)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want one containing %q", c.args, err, c.want)
		}
	}
}

// A value that does not parse is reported once, as such, not also as
// out of range.
func TestBadValueReportedOnce(t *testing.T) {
	_, err := ParseArgs([]string{"oltp_read_write", "run", "--threads=1e3"}, nil, nil)
	if err == nil || strings.Count(err.Error(), "--threads") != 1 || !strings.Contains(err.Error(), "--threads=1e3: not an integer") {
		t.Fatalf("error %v: want one line, --threads=1e3: not an integer", err)
	}
}

func TestHelpListsModeOptions(t *testing.T) {
	fork, old := Help(ModeFork), Help(Mode1020)
	if !strings.Contains(fork, "--warmup-time=") || strings.Contains(fork, "--rand-spec-iter=") {
		t.Error("fork help lists the wrong options")
	}
	if strings.Contains(old, "--warmup-time=") || !strings.Contains(old, "--rand-spec-iter=") || !strings.Contains(old, "[special]") {
		t.Error("1.0.20 help lists the wrong options or defaults")
	}
}

// --ybload-start-at takes the orchestrator's Unix milliseconds or an RFC
// 3339 time, in either spelling; without it there is no start time, so the
// run starts as sysbench's does.
func TestStartAt(t *testing.T) {
	want := time.Date(2023, 11, 14, 22, 13, 20, 123e6, time.UTC)
	for _, a := range []string{"--ybload-start-at=1700000000123", "--ybload_start_at=2023-11-14T22:13:20.123Z"} {
		if o := parse(t, "oltp_read_write", a, "run"); !o.StartAt.Equal(want) {
			t.Errorf("%s: start at %v, want %v", a, o.StartAt, want)
		}
	}
	if o := parse(t, "oltp_read_write", "run"); !o.StartAt.IsZero() {
		t.Errorf("no --ybload-start-at: start at %v, want none", o.StartAt)
	}
}

// --ybload-metrics-addr takes HOST:PORT in either spelling, kept in
// canonical form; without it the live metrics are off (malformed values:
// TestBadOptions).
func TestMetricsAddr(t *testing.T) {
	for _, a := range []string{"--ybload-metrics-addr=10.0.0.5:09464", "--ybload_metrics_addr=10.0.0.5:9464"} {
		if o := parse(t, "oltp_read_write", a, "run"); o.MetricsAddr != "10.0.0.5:9464" || o.Given["ybload_metrics_addr"] == "" {
			t.Errorf("%s: %q, recorded %q", a, o.MetricsAddr, o.Given["ybload_metrics_addr"])
		}
	}
	if o := parse(t, "oltp_read_write", "run"); o.MetricsAddr != "" {
		t.Errorf("no --ybload-metrics-addr: %q, want off", o.MetricsAddr)
	}
}

// What sysbench accepts and ybload accepted too late: an empty table
// (--table-size=0), the fork's --luajit-cmd (no effect), --validate and
// --debug (which raises the verbosity as sysbench's debug mode does).
func TestAcceptedAsSysbenchDoes(t *testing.T) {
	o, err := ParseArgs([]string{"oltp_insert", "prepare", "--table-size=0", "--luajit-cmd=off", "--debug", "--validate=on"}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if o.TableSize != 0 || !o.Debug || !o.Validate || o.Verbosity != 5 {
		t.Errorf("table size %d, debug %v, validate %v, verbosity %d", o.TableSize, o.Debug, o.Validate, o.Verbosity)
	}
}
