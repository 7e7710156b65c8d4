//go:build e2e

package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ybbench/ybbench/bench/ycsb"
	"github.com/ybbench/ybbench/collect"
	"github.com/ybbench/ybbench/infra"
	"github.com/ybbench/ybbench/infra/terraform"
	"github.com/ybbench/ybbench/record/hist"
)

const quick = "--records=3000 --operations=6000 --threads=8 --load-threads=4 --duration=60s --start-delay=2s"

func quickArgs(cmd string, extra ...string) []string {
	return append(append([]string{cmd}, strings.Fields(quick)...), extra...)
}

// The pipeline stage by stage on a local cluster of 3 db hosts and 2
// client hosts over real SSH, with the postgres flavor: every agent works,
// the table holds exactly what the agents say they inserted, the merged
// p99 is the exact p99 of every agent's raw latencies (within HDR
// precision), and after down nothing of the run remains.
func TestE2ELocalStages(t *testing.T) {
	runs := runsDir(t)
	subnet := "10.213.110"
	cleanupRuns(t, runs)
	up := ybbench(t, quickArgs("up", "--local", "--db-hosts=3", "--client-hosts=2", "--flavor=postgres",
		"--workloads=workloada,workloadd", "--runs-dir="+runs, "--subnet="+subnet+".0/24",
		"--agent-properties=measurementtype=hdrhistogram+raw,measurement.raw.output_file=raw-{workload}-{phase}.txt")...)
	dir := runDirIn(t, runs, 0)
	if up.code != 0 {
		t.Fatalf("up: exit %d\n%s", up.code, up.stderr)
	}
	// up prints the run's id alone on stdout (RUN=$(ybbench up …)).
	if up.stdout != filepath.Base(dir)+"\n" {
		t.Errorf("up printed %q on stdout, want the run id %s alone", up.stdout, filepath.Base(dir))
	}
	for _, st := range []string{"install", "bench", "collect", "report"} {
		if r := ybbench(t, st, "--run", dir); r.code != 0 {
			t.Fatalf("%s: exit %d\n%s", st, r.code, r.stderr)
		}
	}
	c := readCluster(t, dir)
	clients := c.ByRole(infra.RoleClient)
	if len(clients) != 2 || len(c.ByRole(infra.RoleDB)) != 3 {
		t.Fatalf("cluster %+v", c.Hosts)
	}
	// The Terraform that made the hosts (the test environment's) is
	// recorded in cluster.json and in the ledger's up step.
	if v := c.Meta[infra.MetaTerraformVersion]; v != terraform.TestedVersion {
		t.Errorf("cluster.json records Terraform %q, want the test environment's %s", v, terraform.TestedVersion)
	}
	for _, st := range readLedger(t, dir).Steps {
		if st.Name == "up" && st.Details[infra.MetaTerraformVersion] != terraform.TestedVersion {
			t.Errorf("the up step records Terraform %q", st.Details[infra.MetaTerraformVersion])
		}
	}

	// Every agent did work, by its own summary.
	inserted := int64(0)
	for _, h := range clients {
		for _, w := range []string{"workloada", "workloadd"} {
			s := agentSummary(t, dir, h.Name, w+"-run")
			if s.Ops <= 0 {
				t.Errorf("%s %s: %d operations", h.Name, w, s.Ops)
			}
			if w == "workloadd" {
				inserted += s.Counters["insert_ok"]
			}
		}
	}
	assertQuorumReplication(t, c)

	// The table (workloadd's, the last) holds the records plus exactly the
	// inserts the agents report.
	if got, want := countRows(t, dir, c), int64(3000)+inserted; got != want || inserted == 0 {
		t.Errorf("usertable holds %d rows; 3000 loaded + %d inserted by the agents = %d", got, inserted, want)
	}

	// The merged p99 against the exact p99 of all agents' raw latencies.
	var res collect.Result
	b, _ := os.ReadFile(filepath.Join(dir, "result.json"))
	checkSchema(t, b)
	if err := json.Unmarshal(b, &res); err != nil {
		t.Fatal(err)
	}
	var raw []int64
	for _, h := range clients {
		raw = append(raw, rawLatencies(t, filepath.Join(h.Base, "ybbench", "agent", "raw-workloada-run.txt"), "RawREAD")...)
	}
	merged := findMeasurement(t, &res, "workloada", "run", "READ")
	if int64(len(raw)) != merged.Count {
		t.Fatalf("%d raw READ latencies, merged count %d", len(raw), merged.Count)
	}
	slices.Sort(raw)
	exact := raw[int(0.99*float64(len(raw))+0.5)-1]
	if h := hist.New(); !h.Equivalent(merged.Latency.P99, exact) {
		t.Errorf("merged p99 %d µs, exact p99 of the agents' raw latencies %d µs: not within HDR precision", merged.Latency.P99, exact)
	}
	if len(merged.Statuses) == 0 || res.Workloads[0].SanityText == "" {
		t.Errorf("statuses %v sanity %q", merged.Statuses, res.Workloads[0].SanityText)
	}
	report, _ := os.ReadFile(filepath.Join(dir, "report.md"))
	for _, want := range []string{"## workloada", "Beside the published figures", "mean READ", "Sanity", "not the seeds' method"} {
		if !strings.Contains(string(report), want) {
			t.Errorf("report.md lacks %q", want)
		}
	}

	if r := ybbench(t, "down", "--run", dir); r.code != 0 {
		t.Fatalf("down: exit %d\n%s", r.code, r.stderr)
	}
	assertNothingRemains(t, dir, subnet+".")
	if st := readLedger(t, dir).State; st != "torn-down" {
		t.Errorf("ledger state %q after down", st)
	}
}

// The same run driven by an inventory file pointing at local hosts: the
// whole `run`, and its down wipes the database but deletes no machine.
func TestE2EInventoryRun(t *testing.T) {
	runs := runsDir(t)
	subnet := "10.213.111"
	cleanupRuns(t, runs)
	up := ybbench(t, "up", "--local", "--db-hosts=3", "--client-hosts=1", "--runs-dir="+runs, "--subnet="+subnet+".0/24")
	hostsDir := runDirIn(t, runs, 0)
	if up.code != 0 {
		t.Fatalf("up: exit %d\n%s", up.code, up.stderr)
	}
	c := readCluster(t, hostsDir)

	// Without their keys the hosts are refused before anything connects:
	// exit 2, and how to add each key.
	unpinned := writeInventory(t, c, func(_ int, e map[string]any) { delete(e["ssh"].(map[string]any), "host_key") })
	if r := ybbench(t, "up", "--inventory="+unpinned, "--runs-dir="+runsDir(t)); r.code != 2 ||
		!strings.Contains(r.stderr, "unknown SSH host key") || !strings.Contains(r.stderr, "ssh-keyscan "+c.Hosts[0].PublicIP+" >> ") {
		t.Errorf("up with unknown host keys: exit %d, want 2 and the ssh-keyscan line:\n%s", r.code, tail(r.stderr, 20))
	}

	inv := writeInventory(t, c, nil)
	invRuns := runsDir(t)
	cleanupRuns(t, invRuns)
	cmd, out := start(t, quickArgs("run", "--inventory="+inv, "--workloads=workloada", "--runs-dir="+invRuns)...)
	invDir := runDirIn(t, invRuns, time.Minute)
	// While the agents run, the database is there: the check after down
	// that it is gone is then about a directory that existed.
	waitStep(t, invDir, "bench/workloada/run", 5*time.Minute)
	for _, h := range c.ByRole(infra.RoleDB) {
		if fi, err := os.Stat(filepath.Join(h.Base, "inv", "ybbench", "postgres")); err != nil || !fi.IsDir() {
			t.Errorf("%s: no database directory while the run benches: %v", h.Name, err)
		}
	}
	if code := exitCode(cmd.Wait()); code != 0 {
		t.Fatalf("run --inventory: exit %d\n%s", code, tail(out.String(), 40))
	}
	r := result{code: 0, stdout: out.String()}
	var res collect.Result
	b, _ := os.ReadFile(filepath.Join(invDir, "result.json"))
	checkSchema(t, b)
	if err := json.Unmarshal(b, &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Workloads) != 1 || len(res.Workloads[0].Phases) != 2 || res.Workloads[0].Phases[1].Ops <= 0 {
		t.Fatalf("result %+v", res.Workloads)
	}
	if !strings.Contains(r.stdout, "## workloada") {
		t.Errorf("the report is not printed:\n%s", r.stdout)
	}
	// The machines are still there (reachable over SSH), the database is gone.
	for _, h := range c.Hosts {
		if _, err := os.Stat(filepath.Join(h.Base, "inv", "ybbench", "postgres")); err == nil {
			t.Errorf("%s: the inventory run's database was not wiped", h.Name)
		}
	}
	if out, err := runSSH(c, c.Hosts[0], "echo still-here"); err != nil || !strings.Contains(out, "still-here") {
		t.Errorf("the inventory's down must not delete machines: %v %s", err, out)
	}
	if r := ybbench(t, "down", "--run", hostsDir); r.code != 0 {
		t.Fatalf("down: exit %d\n%s", r.code, r.stderr)
	}
	assertNothingRemains(t, hostsDir, subnet+".")
}

// writeInventory lists a local cluster's hosts in an inventory file, each
// with a base of its own under its host directory and its host key pinned
// (ssh.host_key, the key the local provider generated for its sshd). edit
// may change entries.
func writeInventory(t *testing.T, c *infra.Cluster, edit func(i int, entry map[string]any)) string {
	t.Helper()
	var hosts []map[string]any
	for i, h := range c.Hosts {
		if h.SSH.HostKey == "" {
			t.Fatalf("%s: the local provider recorded no host key", h.Name)
		}
		e := map[string]any{"name": h.Name, "roles": h.Roles, "address": h.PublicIP,
			"ssh": map[string]any{"user": "root", "key": h.SSH.KeyFile, "host_key": h.SSH.HostKey}, "base": filepath.Join(h.Base, "inv"), "shared": true}
		if edit != nil {
			edit(i, e)
		}
		hosts = append(hosts, e)
	}
	b, _ := json.Marshal(map[string]any{"hosts": hosts}) // JSON is YAML
	path := filepath.Join(t.TempDir(), "hosts.yaml")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func agentSummary(t *testing.T, dir, host, phase string) ycsb.Summary {
	t.Helper()
	var s ycsb.Summary
	b, err := os.ReadFile(filepath.Join(dir, "agents", host, phase+".json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	return s
}

func countRows(t *testing.T, dir string, c *infra.Cluster) int64 {
	t.Helper()
	var dep struct {
		YSQL []struct {
			Addr string
			Port int
		}
		User         string
		PasswordFile string `json:"password_file"`
		Database     string
	}
	b, _ := os.ReadFile(filepath.Join(dir, "deployment.json"))
	if err := json.Unmarshal(b, &dep); err != nil || len(dep.YSQL) == 0 {
		t.Fatalf("deployment.json: %v", err)
	}
	pw, _ := os.ReadFile(dep.PasswordFile)
	// From a client host: the server takes the bench role only from the
	// cluster's own addresses, not from this machine's side of the bridge.
	// The password goes in a 0600 pgpass file (the hosts share this
	// filesystem), not on a command line.
	pass := filepath.Join(t.TempDir(), "pgpass")
	line := fmt.Sprintf("%s:%d:%s:%s:%s\n", dep.YSQL[0].Addr, dep.YSQL[0].Port, dep.Database, dep.User, strings.TrimSpace(string(pw)))
	if err := os.WriteFile(pass, []byte(line), 0o600); err != nil {
		t.Fatal(err)
	}
	psql, _ := filepath.Glob("/usr/lib/postgresql/*/bin/psql")
	if len(psql) == 0 {
		t.Fatal("no psql in /usr/lib/postgresql/*/bin")
	}
	client := c.ByRole(infra.RoleClient)[0]
	out, err := runSSH(c, client, fmt.Sprintf("PGPASSFILE=%s %s -X -A -t -w -h %s -p %d -U %s -d %s -c 'SELECT count(*) FROM usertable'",
		pass, psql[len(psql)-1], dep.YSQL[0].Addr, dep.YSQL[0].Port, dep.User, dep.Database))
	if err != nil {
		t.Fatalf("count from %s: %v: %s", client.Name, err, out)
	}
	n, err := strconv.ParseInt(strings.TrimSpace(out), 10, 64)
	if err != nil {
		t.Fatalf("count from %s: %q: %v", client.Name, out, err)
	}
	return n
}

func rawLatencies(t *testing.T, path, name string) []int64 {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []int64
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		p := strings.Split(sc.Text(), ",")
		if len(p) == 3 && p[0] == name {
			v, err := strconv.ParseInt(p[2], 10, 64)
			if err != nil {
				t.Fatalf("%s: bad line %q", path, sc.Text())
			}
			out = append(out, v)
		}
	}
	return out
}

func findMeasurement(t *testing.T, r *collect.Result, w, phase, name string) *collect.MeasurementResult {
	t.Helper()
	for i := range r.Workloads {
		if r.Workloads[i].Name != w {
			continue
		}
		for j := range r.Workloads[i].Phases {
			p := &r.Workloads[i].Phases[j]
			if p.Phase == phase {
				if m := p.Find(name); m != nil {
					return m
				}
			}
		}
	}
	t.Fatalf("no %s %s %s in result.json", w, phase, name)
	return nil
}

// The sysbench-ysql profile, quick, on a local cluster with the postgres
// flavor: two workloads, each prepared, run and cleaned up (visible in the
// ledger), compared with seed 003's table, which is shown and never gated.
func TestE2ESysbenchLocal(t *testing.T) {
	runs := runsDir(t)
	cleanupRuns(t, runs)
	r := ybbench(t, "run", "--local", "--profile=sysbench-ysql", "--db-hosts=1", "--workloads=oltp_point_select,oltp_read_write",
		"--records=2000", "--threads=4", "--duration=4s", "--warmup=1s", "--start-delay=2s", "--runs-dir="+runs, "--subnet=10.213.112.0/24")
	if r.code != 0 {
		t.Fatalf("run: exit %d\n%s", r.code, r.stderr)
	}
	dir := runDirIn(t, runs, 0)
	l := readLedger(t, dir)
	steps := map[string]string{}
	for _, s := range l.Steps {
		steps[s.Name] = s.Status
	}
	for _, w := range []string{"oltp_point_select", "oltp_read_write"} {
		for _, ph := range []string{"prepare", "run", "cleanup"} {
			if steps["bench/"+w+"/"+ph] != "done" {
				t.Errorf("step bench/%s/%s: %q", w, ph, steps["bench/"+w+"/"+ph])
			}
		}
		var res collect.Result
		b, _ := os.ReadFile(filepath.Join(dir, "result.json"))
		checkSchema(t, b)
		json.Unmarshal(b, &res)
		if m := findMeasurement(t, &res, w, "run", "EVENT"); m.Count == 0 {
			t.Errorf("%s: no events", w)
		}
		dat, err := os.ReadFile(filepath.Join(dir, "agents", "client-1", w+"-run.dat"))
		if err != nil || !strings.Contains(string(dat), "SQL statistics:") || !strings.Contains(string(dat), "transactions:") {
			t.Errorf("%s: sysbench's own report is missing: %v\n%s", w, err, dat)
		}
	}
	for _, want := range []string{"never used as a gate", "p95 EVENT", "mean EVENT", "Sanity"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	if l.State != "torn-down" {
		t.Errorf("state %q", l.State)
	}
	assertNothingRemains(t, dir, "10.213.112.")
}

// assertQuorumReplication checks what the postgres flavor promises on the
// primary (the first db host) itself, over its socket as the service user:
// one streaming replica per other db host, each in the quorum
// (pg_stat_replication's sync_state), and synchronous_standby_names asking
// for ANY n/2 of them.
func assertQuorumReplication(t *testing.T, c *infra.Cluster) {
	t.Helper()
	dbs := c.ByRole(infra.RoleDB)
	primary := dbs[0]
	psql := superuserPsql(t, primary, "postgres")
	query := func(sql string) string {
		t.Helper()
		cmd := exec.Command(psql[0], append(psql[1:], "-c", sql)...)
		cmd.Env = []string{"PATH=/usr/bin:/bin", "HOME=/nonexistent"}
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("psql on %s: %s: %v\n%s", primary.Name, sql, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	var replicas, quoted []string
	for _, h := range dbs[1:] {
		replicas = append(replicas, h.Name+"|quorum")
		quoted = append(quoted, `"`+h.Name+`"`)
	}
	rows := strings.Split(query("SELECT application_name || '|' || sync_state FROM pg_stat_replication ORDER BY application_name"), "\n")
	if !slices.Equal(rows, replicas) {
		t.Errorf("pg_stat_replication on %s: %q, want %q (a quorum standby per replica)", primary.Name, rows, replicas)
	}
	want := fmt.Sprintf("ANY %d (%s)", len(replicas)/2, strings.Join(quoted, ", "))
	if got := query("SHOW synchronous_standby_names"); got != want {
		t.Errorf("synchronous_standby_names on %s: %q, want %q", primary.Name, got, want)
	}
}

// superuserPsql is the command line of psql on a db host's server as its
// superuser, over the server's socket as the service user that owns it:
// unaligned, tuples only, quiet.
func superuserPsql(t *testing.T, primary infra.Host, database string) []string {
	t.Helper()
	var socket string
	filepath.WalkDir(primary.Base, func(p string, e fs.DirEntry, err error) error {
		if err == nil && e.Type()&fs.ModeSocket != 0 && strings.HasPrefix(e.Name(), ".s.PGSQL.") {
			socket = p
		}
		return nil
	})
	if socket == "" {
		t.Fatalf("no PostgreSQL socket under %s", primary.Base)
	}
	port := strings.TrimPrefix(filepath.Base(socket), ".s.PGSQL.")
	fi, err := os.Stat(filepath.Dir(socket))
	if err != nil {
		t.Fatal(err)
	}
	owner, err := user.LookupId(strconv.Itoa(int(fi.Sys().(*syscall.Stat_t).Uid)))
	if err != nil {
		t.Fatalf("the owner of %s: %v", filepath.Dir(socket), err)
	}
	psql := mustGlob(t, "/usr/lib/postgresql/*/bin/psql")
	if len(psql) == 0 {
		t.Fatal("no psql in /usr/lib/postgresql/*/bin")
	}
	return []string{"runuser", "-u", owner.Username, "--", psql[0], "-X", "-q", "-A", "-t", "-w",
		"-h", filepath.Dir(socket), "-p", port, "-U", "postgres", "-d", database}
}
