//go:build integration

package kv

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os/exec"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/ybbench/ybbench/internal/testenv"
)

// sampleApps runs yb-sample-apps 1.0.11 with args and returns its exit
// code and output (stdout and stderr together).
func sampleApps(t *testing.T, args ...string) (int, string) {
	t.Helper()
	r := testenv.RefsFor(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, r.Java, append([]string{"-jar", r.YBSampleApps}, args...)...)
	out, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		t.Fatalf("yb-sample-apps %v: %v\n%s", args, ctx.Err(), out)
	}
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("yb-sample-apps %v: %v", args, err)
	}
	return code, string(out)
}

// The option combinations yb-sample-apps refuses are refused by ybload kv
// (exit 2, before connecting), and the ones it accepts are accepted: each
// is run through the reference, whose refusals are its CmdLineOpts ERROR or
// FATAL lines, on an address where nothing listens.
func TestIntegrationKVOptionRefusalsMatchTheReference(t *testing.T) {
	base := "--workload CassandraKeyValue --nodes 127.0.0.1:1 "
	for _, c := range []struct {
		args    string
		refused bool
	}{
		{"--skip_workload", true},
		{"--skip_workload --drop_table_name t", false},
		{"--password p", true},
		{"--username u --password p", false},
		{"--create_table_name a --drop_table_name b", true},
		{"--with_local_dc dc1 --disable_yb_load_balancing_policy", true},
		{"--with_local_dc dc1", false},
		{"--batch_size 5 --num_unique_keys 3", true},
		{"--num_unique_keys 3 --batch_size 5", true},
		{"--batch_size 3 --num_unique_keys 3", false},
		{"--batch_size 0", false},
	} {
		args := strings.Fields(base + c.args)
		code, out := sampleApps(t, args...)
		if strings.Contains(out, "UnrecognizedOptionException") {
			t.Fatalf("%s: the reference does not know an option:\n%s", c.args, out)
		}
		refRefused := code != 0 && regexpCmdLineRefusal(out)
		if refRefused != c.refused {
			t.Fatalf("%s: the reference refused=%v (exit %d), the case says %v:\n%s", c.args, refRefused, code, c.refused, out)
		}
		_, err := ParseArgs(args, func(string) string { return "" })
		if (err != nil) != c.refused {
			t.Errorf("%s: ybload kv's parse error %v, the reference refused=%v:\n%s", c.args, err, refRefused, out)
		}
	}
}

func regexpCmdLineRefusal(out string) bool {
	return strings.Contains(out, "ERROR com.yugabyte.sample.common.CmdLineOpts") ||
		strings.Contains(out, "FATAL com.yugabyte.sample.common.CmdLineOpts")
}

// --drop_table_name X drops X, then creates X and runs the workload on it;
// with --skip_workload it drops X and stops with exit 0. Both tools are run
// on tables of their own holding a stale row, and their tables compared.
func TestIntegrationKVDropTableMatchesTheReference(t *testing.T) {
	nodes, s := node(t)
	// yb-sample-apps 1.0.11 writes to this keyspace only, which the
	// side-by-side benchmark drops between its runs: do not run both at once.
	const ks = DefaultKeyspace
	own := ownKeyspace(t, s)
	ref, ours := fmt.Sprintf("kvref_%d", rand.IntN(1e9)), "kvours"
	t.Cleanup(func() { s.Query("DROP TABLE IF EXISTS " + ks + "." + ref).Exec() })
	exec := func(stmt string) {
		t.Helper()
		if err := s.Query(stmt).Exec(); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	stale := func() {
		for _, k := range []string{ks, own} {
			exec("CREATE KEYSPACE IF NOT EXISTS " + k + " WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
		}
		for _, tb := range []string{ks + "." + ref, own + "." + ours} {
			exec("CREATE TABLE IF NOT EXISTS " + tb + " (k varchar, v blob, primary key (k))")
			exec("INSERT INTO " + tb + " (k, v) VALUES ('stale', 0x00)")
		}
	}
	exists := func(k, tb string) bool {
		var n int
		if err := s.Query("SELECT COUNT(*) FROM system_schema.tables WHERE keyspace_name = ? AND table_name = ?", k, tb).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n > 0
	}
	ybload := func(args ...string) {
		t.Helper()
		r := runKV(t, append(args, "--ybload_keyspace", own)...)
		if r.code != 0 {
			t.Fatalf("ybload kv %v: exit %d\n%s", args, r.code, r.stderr)
		}
	}

	stale()
	if code, out := sampleApps(t, "--workload", WorkloadKV, "--nodes", nodes, "--disable_yb_load_balancing_policy",
		"--drop_table_name", ref, "--skip_workload"); code != 0 {
		t.Fatalf("the reference: exit %d\n%s", code, out)
	}
	ybload("--workload", WorkloadKV, "--nodes", nodes, "--disable_yb_load_balancing_policy", "--drop_table_name", ours, "--skip_workload")
	if exists(ks, ref) || exists(own, ours) {
		t.Fatalf("--skip_workload: %s kept %v, %s kept %v; the reference drops it", ref, exists(ks, ref), ours, exists(own, ours))
	}

	stale()
	run := "--nouuid --num_threads_read 0 --num_threads_write 1 --num_writes 30 --num_reads 0 --num_unique_keys 30 --value_size 16"
	if code, out := sampleApps(t, append([]string{"--workload", WorkloadKV, "--nodes", nodes, "--disable_yb_load_balancing_policy",
		"--drop_table_name", ref}, strings.Fields(run)...)...); code != 0 {
		t.Fatalf("the reference: exit %d\n%s", code, out)
	}
	ybload(append([]string{"--workload", WorkloadKV, "--nodes", nodes, "--disable_yb_load_balancing_policy", "--drop_table_name", ours},
		strings.Fields(run)...)...)
	want, got := keysOf(t, s, ks+"."+ref), keysOf(t, s, own+"."+ours)
	if len(want) != 30 || strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("keys in the dropped-then-created table: ours %v, the reference's %v", got, want)
	}
}

// keysOf lists a table's keys, sorted.
func keysOf(t *testing.T, s *gocql.Session, table string) []string {
	t.Helper()
	iter := s.Query("SELECT k FROM " + table).Iter()
	var keys []string
	var k string
	for iter.Scan(&k) {
		keys = append(keys, k)
	}
	if err := iter.Close(); err != nil {
		t.Fatalf("%s: %v", table, err)
	}
	sort.Strings(keys)
	return keys
}
