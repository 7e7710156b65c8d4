//go:build e2e

package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/ybbench/ybbench/bench/kv"
	"github.com/ybbench/ybbench/bench/sysbench"
	"github.com/ybbench/ybbench/collect"
	"github.com/ybbench/ybbench/infra"
	"github.com/ybbench/ybbench/provision"
)

// readJSON reads a JSON file of the run into v.
func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// readResult reads and checks result.json.
func readResult(t *testing.T, dir string) *collect.Result {
	t.Helper()
	var res collect.Result
	b, _ := os.ReadFile(filepath.Join(dir, "result.json"))
	checkSchema(t, b)
	if err := json.Unmarshal(b, &res); err != nil {
		t.Fatal(err)
	}
	return &res
}

// keyRange is the agent's part of the keys as its settings say (kv.agent_keys).
func keyRange(t *testing.T, s *kv.Summary) (first, last int64) {
	t.Helper()
	a, b, ok := strings.Cut(s.Settings["kv.agent_keys"], "-")
	first, err1 := strconv.ParseInt(a, 10, 64)
	last, err2 := strconv.ParseInt(b, 10, 64)
	if !ok || err1 != nil || err2 != nil {
		t.Fatalf("kv.agent_keys %q", s.Settings["kv.agent_keys"])
	}
	return first, last
}

// unionSize is how many numbers the half-open intervals cover together.
func unionSize(iv [][2]int64) int64 {
	slices.SortFunc(iv, func(a, b [2]int64) int { return int(a[0] - b[0]) })
	var n, end int64 = 0, -1
	for _, r := range iv {
		if r[0] > end {
			end = r[0]
		}
		if r[1] > end {
			n += r[1] - end
			end = r[1]
		}
	}
	return n
}

// The kv-ycql profile's write-heavy and read-heavy workloads, quick, on
// Cassandra with 2 client hosts. Write phase: each agent's keys are in its
// own range, and the table holds exactly the keys the agents report written
// (no key written by both); read phase: its setup writes its keys once in
// all, and no read fails verification or finds no row. The merged figures
// are the sums of the agents', and the report says how the load was spread.
func TestE2EScaleOutKV(t *testing.T) {
	runs := runsDir(t)
	subnet := "10.213.160"
	cleanupRuns(t, runs)
	if r := ybbench(t, "up", "--local", "--profile=kv-ycql", "--db-hosts=1", "--client-hosts=2", "--workloads=write-heavy,read-heavy",
		"--duration=5s", "--threads=4", "--start-delay=3s", "--runs-dir="+runs, "--subnet="+subnet+".0/24"); r.code != 0 {
		t.Fatalf("up: exit %d\n%s", r.code, r.stderr)
	}
	dir := runDirIn(t, runs, 0)
	t.Cleanup(func() {
		if t.Failed() {
			ybbench(t, "down", "--run", dir) // nothing left behind by a failed test
		}
	})
	for _, st := range []string{"install", "bench", "collect", "report"} {
		if r := ybbench(t, st, "--run", dir); r.code != 0 {
			t.Fatalf("%s: exit %d\n%s", st, r.code, r.stderr)
		}
	}
	c := readCluster(t, dir)
	clients := c.ByRole(infra.RoleClient)
	if len(clients) != 2 {
		t.Fatalf("%d clients", len(clients))
	}
	summary := func(host, w string) *kv.Summary {
		var s kv.Summary
		readJSON(t, filepath.Join(dir, "agents", host, w+"-run.json"), &s)
		return &s
	}

	// The table's keys, read from the database.
	var dep provision.Deployment
	readJSON(t, filepath.Join(dir, "deployment.json"), &dep)
	pw, err := os.ReadFile(dep.PasswordFile)
	if err != nil || len(dep.YCQL) == 0 {
		t.Fatalf("deployment: %+v %v", dep, err)
	}
	cl := gocql.NewCluster(dep.YCQL[0].Addr)
	cl.Port, cl.ProtoVersion, cl.Consistency, cl.Timeout = dep.YCQL[0].Port, 4, gocql.One, 30*time.Second
	cl.Authenticator = gocql.PasswordAuthenticator{Username: dep.User, Password: strings.TrimSpace(string(pw))}
	sess, err := cl.CreateSession()
	if err != nil {
		t.Fatalf("connect to %s: %v", dep.YCQL[0].Addr, err)
	}
	var keys []int64
	iter := sess.Query("SELECT k FROM " + kv.DefaultKeyspace + ".cassandrakeyvalue").PageSize(5000).Iter()
	var k string
	for iter.Scan(&k) {
		n, err := strconv.ParseInt(strings.TrimPrefix(k, "key:"), 10, 64)
		if err != nil {
			t.Fatalf("key %q", k)
		}
		keys = append(keys, n)
	}
	if err := iter.Close(); err != nil {
		t.Fatal(err)
	}
	sess.Close()
	inTable := func(first, last int64) (n int64) {
		for _, k := range keys {
			if k >= first && k <= last {
				n++
			}
		}
		return n
	}

	// Write phase: each agent's own range, none shared; the keys each
	// handed out are the keys it wrote (none failed, none updated), and
	// the part of the table in its range holds exactly them — the second
	// agent's range is written by nobody else.
	var covered [][2]int64
	var written int64
	ranges := map[string]string{}
	for i, h := range clients {
		s := summary(h.Name, "write-heavy")
		first, last := keyRange(t, s)
		w, gen := s.Counters["keys_written"], s.Counters["max_generated_key"]
		written += w
		ranges[h.Name] = s.Settings["kv.agent_keys"]
		if s.Settings["kv.agent"] != fmt.Sprintf("%d of 2", i) || w <= 0 || s.Counters["failed_keys"] != 0 || gen != first+w-1 || gen > last {
			t.Errorf("%s write-heavy: agent %q, keys %d-%d, %d written, %d failed, highest key handed out %d",
				h.Name, s.Settings["kv.agent"], first, last, w, s.Counters["failed_keys"], gen)
		}
		if i == 1 {
			if got := inTable(first, last); got != w {
				t.Errorf("%s reports %d keys written; its range %d-%d of the table holds %d", h.Name, w, first, last, got)
			}
		}
		covered = append(covered, [2]int64{first, first + w})
	}
	if ranges[clients[0].Name] == ranges[clients[1].Name] {
		t.Errorf("both agents had the keys %s", ranges[clients[0].Name])
	}

	// Read phase: the setup's keys, half each, in each agent's range;
	// every read verified, none of a key not written.
	var setup, reads int64
	for _, h := range clients {
		s := summary(h.Name, "read-heavy")
		first, _ := keyRange(t, s)
		n := s.Counters["setup_keys"]
		setup += n
		covered = append(covered, [2]int64{first, first + n})
		var read kv.SummaryOp
		for _, m := range s.Measurements {
			if m.Name == "Read" {
				read = m
			}
		}
		reads += read.Units
		if n < kv.PureReadSetupKeys/2 || s.Counters["read_verify_failures"] != 0 || s.Counters["read_row_count_mismatches"] != 0 ||
			read.Units == 0 || read.Statuses["OK"] != read.Units {
			t.Errorf("%s read-heavy: %d setup keys, %d verification failures, %d missing rows, reads %+v", h.Name, n,
				s.Counters["read_verify_failures"], s.Counters["read_row_count_mismatches"], read)
		}
	}
	if setup > kv.PureReadSetupKeys+2*16 {
		t.Errorf("the setups wrote %d keys, want %d once in all (plus the writers' last in flight)", setup, kv.PureReadSetupKeys)
	}
	// Both workloads write one table: it holds the union of what each
	// agent of each wrote, and nothing else.
	if want := unionSize(covered); int64(len(keys)) != want {
		t.Errorf("the table holds %d keys; the agents' writes cover %d (%v)", len(keys), want, covered)
	}

	// The merged figures are the agents' sums.
	res := readResult(t, dir)
	// A kv workload has one measured phase, named after the tool's
	// workload (CassandraKeyValue) in the records.
	units := func(w, op string) int64 {
		for _, wr := range res.Workloads {
			if wr.Name != w || len(wr.Phases) != 1 {
				continue
			}
			if m := wr.Phases[0].Find(op); m != nil {
				if m.Units != 0 {
					return m.Units
				}
				return m.Count
			}
		}
		t.Fatalf("no %s %s in result.json", w, op)
		return 0
	}
	if got := units("write-heavy", "Write"); got != written {
		t.Errorf("merged write-heavy Write: %d keys; the agents wrote %d", got, written)
	}
	if got := units("read-heavy", "Read"); got != reads {
		t.Errorf("merged read-heavy Read: %d keys; the agents read %d", got, reads)
	}
	if len(res.Notes) == 0 || !strings.Contains(res.Notes[0], "Load spread over 2 client hosts") ||
		!strings.Contains(res.Notes[0], "keys "+ranges[clients[1].Name]) {
		t.Errorf("the first note does not say how the load was spread: %q", res.Notes)
	}
	if r := ybbench(t, "down", "--run", dir); r.code != 0 {
		t.Fatalf("down: exit %d\n%s", r.code, r.stderr)
	}
	assertNothingRemains(t, dir, subnet+".")
}

// sumK is the sum of k over sysbench's ten tables.
const sumK = "SELECT sum(s) FROM (SELECT sum(k) AS s FROM sbtest1 UNION ALL SELECT sum(k) FROM sbtest2 UNION ALL SELECT sum(k) FROM sbtest3" +
	" UNION ALL SELECT sum(k) FROM sbtest4 UNION ALL SELECT sum(k) FROM sbtest5 UNION ALL SELECT sum(k) FROM sbtest6" +
	" UNION ALL SELECT sum(k) FROM sbtest7 UNION ALL SELECT sum(k) FROM sbtest8 UNION ALL SELECT sum(k) FROM sbtest9" +
	" UNION ALL SELECT sum(k) FROM sbtest10) x;\n"

// The sysbench-ysql profile's oltp_update_index (each event adds 1 to one
// row's k), quick, on PostgreSQL with 2 client hosts: the tables are
// prepared and dropped by one client, the threads split, each agent has a
// seed of its own, the database's sum(k) grew by exactly the updates the
// agents report (warm-up included), and the merged transactions are the
// sum of the agents'. The test reads sum(k) in a session that holds a
// share lock on the tables from before the warm-up until after the run, so
// that the cleanup's DROP waits for its second reading.
func TestE2EScaleOutSysbench(t *testing.T) {
	runs := runsDir(t)
	subnet := "10.213.161"
	const w = "oltp_update_index"
	cleanupRuns(t, runs)
	if r := ybbench(t, "up", "--local", "--profile=sysbench-ysql", "--db-hosts=1", "--client-hosts=2", "--workloads="+w,
		"--records=2000", "--threads=4", "--duration=8s", "--warmup=2s", "--start-delay=20s", "--runs-dir="+runs, "--subnet="+subnet+".0/24"); r.code != 0 {
		t.Fatalf("up: exit %d\n%s", r.code, r.stderr)
	}
	dir := runDirIn(t, runs, 0)
	t.Cleanup(func() {
		if t.Failed() {
			ybbench(t, "down", "--run", dir) // nothing left behind by a failed test
		}
	})
	if r := ybbench(t, "install", "--run", dir); r.code != 0 {
		t.Fatalf("install: exit %d\n%s", r.code, r.stderr)
	}
	c := readCluster(t, dir)
	var dep provision.Deployment
	readJSON(t, filepath.Join(dir, "deployment.json"), &dep)

	bench, out := start(t, "bench", "--run", dir)
	t.Cleanup(func() { bench.Process.Kill(); bench.Wait() })
	// The run phase starts once the tables are prepared; its agents wait
	// the start delay before their warm-up.
	waitStep(t, dir, "bench/"+w+"/run", 3*time.Minute)
	args := superuserPsql(t, c.ByRole(infra.RoleDB)[0], dep.Database)
	psql := exec.Command(args[0], args[1:]...)
	psql.Env = []string{"PATH=/usr/bin:/bin", "HOME=/nonexistent"}
	in, _ := psql.StdinPipe()
	stdout, _ := psql.StdoutPipe()
	psql.Stderr = os.Stderr
	if err := psql.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { in.Close(); psql.Wait() })
	lines := bufio.NewScanner(stdout)
	sum := func() int64 {
		t.Helper()
		io.WriteString(in, sumK)
		if !lines.Scan() {
			t.Fatalf("psql: no sum(k): %v", lines.Err())
		}
		n, err := strconv.ParseInt(strings.TrimSpace(lines.Text()), 10, 64)
		if err != nil {
			t.Fatalf("psql: sum(k) %q", lines.Text())
		}
		return n
	}
	io.WriteString(in, "BEGIN; LOCK TABLE sbtest1, sbtest2, sbtest3, sbtest4, sbtest5, sbtest6, sbtest7, sbtest8, sbtest9, sbtest10 IN ACCESS SHARE MODE;\n")
	before, readBefore := sum(), time.Now()
	// The cleanup starts after the run and waits for the lock.
	waitStep(t, dir, "bench/"+w+"/cleanup", 3*time.Minute)
	after := sum()
	io.WriteString(in, "COMMIT;\n")
	in.Close()
	if err := bench.Wait(); err != nil {
		t.Fatalf("bench: %v\n%s", err, out.String())
	}
	for _, st := range []string{"collect", "report"} {
		if r := ybbench(t, st, "--run", dir); r.code != 0 {
			t.Fatalf("%s: exit %d\n%s", st, r.code, r.stderr)
		}
	}

	// Prepare and cleanup on one client, the run on both.
	for _, s := range readLedger(t, dir).Steps {
		exits := 0
		for k := range s.Details {
			if strings.HasSuffix(k, ".exit") {
				exits++
			}
		}
		want := map[string]int{"bench/" + w + "/prepare": 1, "bench/" + w + "/run": 2, "bench/" + w + "/cleanup": 1}[s.Name]
		if want != 0 && (exits != want || s.Status != "done") {
			t.Errorf("step %s: %s on %d client(s), want %d", s.Name, s.Status, exits, want)
		}
	}
	var updates, events, hdrEvents int64
	seeds := map[string]bool{}
	for _, h := range c.ByRole(infra.RoleClient) {
		var s sysbench.Summary
		readJSON(t, filepath.Join(dir, "agents", h.Name, w+"-run.json"), &s)
		if s.Sysbench == nil || s.HDR == nil || s.Start == nil {
			t.Fatalf("%s: summary without sysbench's figures: %+v", h.Name, s)
		}
		if !readBefore.Before(*s.Start) {
			t.Fatalf("%s started its warm-up at %v, before the test read sum(k) at %v: the reading is not the starting point", h.Name, *s.Start, readBefore)
		}
		n := s.Sysbench.Writes - s.Sysbench.IgnoredErrors
		if s.Warmup != nil {
			n += s.Warmup.Writes - s.Warmup.IgnoredErrors
		}
		updates += n
		events += s.Sysbench.Events
		hdrEvents += s.HDR.Count
		seeds[s.Settings["sysbench.rand_seed"]] = true
		if s.Threads != 2 || s.Cancelled != 0 {
			t.Errorf("%s: %d threads, %d events cancelled", h.Name, s.Threads, s.Cancelled)
		}
	}
	if after-before != updates || updates == 0 {
		t.Errorf("sum(k) grew by %d (%d → %d); the agents report %d updates", after-before, before, after, updates)
	}
	if len(seeds) != 2 {
		t.Errorf("the agents' seeds %v: want one of its own each", seeds)
	}
	res := readResult(t, dir)
	m := findMeasurement(t, res, w, "run", "EVENT")
	if m.Count != events || m.Count != hdrEvents {
		t.Errorf("merged EVENT count %d; the agents' transactions sum to %d (%d in their HDR figures)", m.Count, events, hdrEvents)
	}
	if len(res.Notes) == 0 || !strings.Contains(res.Notes[0], "Load spread over 2 client hosts") || !strings.Contains(res.Notes[0], "2 threads, seed ") {
		t.Errorf("the first note does not say how the load was spread: %q", res.Notes)
	}
	if r := ybbench(t, "down", "--run", dir); r.code != 0 {
		t.Fatalf("down: exit %d\n%s", r.code, r.stderr)
	}
	assertNothingRemains(t, dir, subnet+".")
}
