package pipeline

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ybbench/ybbench/infra"
	"github.com/ybbench/ybbench/infra/inventory"
	"github.com/ybbench/ybbench/infra/local"
	"github.com/ybbench/ybbench/internal/golden"
	"github.com/ybbench/ybbench/profiles"
	"github.com/ybbench/ybbench/provision"
	"github.com/ybbench/ybbench/provision/cassandra"
	"github.com/ybbench/ybbench/provision/postgres"
	"github.com/ybbench/ybbench/provision/yugabyte"
)

func planOf(t *testing.T, edit func(*Spec)) (string, error) {
	t.Helper()
	s := Defaults()
	edit(&s)
	r, err := s.Resolve()
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	err = WritePlan(&b, r, planDeps())
	return b.String(), err
}

// planDeps are the real providers and flavors: plan only asks them what
// they would do.
func planDeps() Deps {
	return Deps{
		Provider: func(s *Spec, _ string) (infra.Provider, error) {
			if s.Provider == "inventory" {
				return inventory.New(s.Inventory), nil
			}
			return local.New(), nil
		},
		Flavor: func(name string) (provision.Flavor, error) {
			return map[string]provision.Flavor{"postgres": &postgres.Flavor{}, "cassandra": cassandra.New(), "yugabyte": yugabyte.New()}[name], nil
		},
	}
}

// The plan shows each family's own agent command lines, the start instant
// of the measured phases as <start time>, and the names the local provider
// really gives its hosts.
func TestPlanPerFamily(t *testing.T) {
	for _, c := range []struct {
		profile string
		want    []string
		not     string
	}{
		{"ycsb-ysql", []string{"ybload load ysql -P workloads/workloada", "ybload run ysql -P workloads/workloadf", "-p ybload.start.at=<start time>\n"}, "ybload sysbench"},
		{"sysbench-ysql", []string{"ybload sysbench oltp_read_only --tables=10 --table-size=100000", "--threads=64 --time=120 --warmup-time=120",
			"--ybload-start-at=<start time> run\n", "cleanup"}, "ybload load"},
		{"kv-ycql", []string{"ybload kv --workload CassandraKeyValue", "--nodes <db hosts>:9042", " --ybload_start_at <start time> "}, "ybload load"},
	} {
		out, err := planOf(t, func(s *Spec) { s.Profile = c.profile })
		if err != nil {
			t.Fatalf("%s: %v", c.profile, err)
		}
		for _, w := range append(c.want, "  db-1 ", "  client-1 ") {
			if !strings.Contains(out, w) {
				t.Errorf("%s: plan lacks %q:\n%s", c.profile, w, out)
			}
		}
		if strings.Contains(out, c.not) {
			t.Errorf("%s: plan has %q:\n%s", c.profile, c.not, out)
		}
	}
}

// With an inventory, plan reads and checks it: its hosts are listed, and a
// bad file is an error naming it.
func TestPlanInventory(t *testing.T) {
	dir := t.TempDir()
	key := filepath.Join(dir, "id")
	os.WriteFile(key, []byte("key"), 0o600)
	good := filepath.Join(dir, "hosts.yaml")
	os.WriteFile(good, []byte("hosts:\n  - {name: db1, roles: [db], address: 10.0.0.1, ssh: {key: "+key+"}}\n"+
		"  - {name: load1, roles: [client], address: 10.0.0.9, ssh: {key: "+key+"}}\n"), 0o644)
	out, err := planOf(t, func(s *Spec) { s.Provider, s.Inventory, s.DBHosts = "inventory", good, 1 })
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "  db1 ") || !strings.Contains(out, "  load1 ") || !strings.Contains(out, "10.0.0.9") ||
		!strings.Contains(out, "machines are kept") || !strings.Contains(out, "database postgres (the db hosts' PostgreSQL packages)") {
		t.Errorf("plan lacks the inventory's hosts, its teardown or the flavor's source:\n%s", out)
	}
	bad := filepath.Join(dir, "bad.yaml")
	os.WriteFile(bad, []byte("hosts:\n  - {name: db1, roles: [witness], address: 10.0.0.1, ssh: {key: "+key+"}}\n"), 0o644)
	if _, err := planOf(t, func(s *Spec) { s.Provider, s.Inventory = "inventory", bad }); err == nil || !strings.Contains(err.Error(), "bad.yaml:2") {
		t.Errorf("a bad inventory: %v", err)
	}
}

// The plan's expected duration is the sum of its phases' bounds, for every
// profile: worked out here from the profiles' documented parameters.
func TestPlanEstimatePerProfile(t *testing.T) {
	ycsb := func(p string) time.Duration {
		// 30 s of overhead; per workload a load of 1 M records at 20,000/s
		// (50 s) and a run of 10 M operations at the published
		// throughput, stopped at 180 s.
		prof, err := profiles.Get(p)
		if err != nil {
			t.Fatal(err)
		}
		d := 30 * time.Second
		for _, wl := range prof.Workloads {
			run := 180 * time.Second
			if row := prof.Baseline.Row(wl); row != nil && row.Throughput > 0 {
				run = min(run, time.Duration(10e6/row.Throughput*float64(time.Second)))
			}
			d += 50*time.Second + run
		}
		return d
	}
	for _, c := range []struct {
		profile string
		quick   bool
		want    time.Duration
	}{
		// Three KV workloads of 3 minutes each, no load phase.
		{"kv-ycql", false, 30*time.Second + 3*3*time.Minute},
		{"kv-ycql", true, 30*time.Second + 3*time.Minute},
		// Eight sysbench workloads: 10 tables × 100,000 rows prepared at
		// 20,000/s (50 s), 120 s of warm-up, 120 s measured.
		{"sysbench-ysql", false, 30*time.Second + 8*(50+120+120)*time.Second},
		{"ycsb-ysql", false, ycsb("ycsb-ysql")},
		{"ycsb-ycql", false, ycsb("ycsb-ycql")},
	} {
		out, err := planOf(t, func(s *Spec) {
			s.Profile = c.profile
			if c.quick {
				s.Duration = new(time.Minute)
			}
		})
		if err != nil {
			t.Fatal(err)
		}
		want := fmt.Sprintf("expected duration: about %v", c.want.Round(time.Second))
		if !strings.Contains(out, want+" ") && !strings.Contains(out, want+",") {
			t.Errorf("%s (quick %v): plan lacks %q:\n%s", c.profile, c.quick, want, out)
		}
	}
}

// What the plan says of the hosts, the software and the teardown comes from
// the provider and the flavor: a local cluster is made and destroyed, an
// inventory's machines are kept; a tarball URL's token is not shown.
func TestPlanAsksProviderAndFlavor(t *testing.T) {
	out, err := planOf(t, func(s *Spec) {
		s.Flavor, s.YBTarball, s.Subnet = "yugabyte", "https://dl.example/yb.tar.gz?token=SECRET", "10.213.7.0/24"
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"  db-1      roles db         network namespace on this machine, subnet 10.213.7.0/24",
		"database yugabyte from https://dl.example/yb.tar.gz?REDACTED", "up         terraform apply of terraform/local",
		"down       always: wipe what the run installed and destroy the hosts"} {
		if !strings.Contains(out, want) {
			t.Errorf("plan lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "SECRET") {
		t.Errorf("plan shows the tarball's token:\n%s", out)
	}
}

// The plan's agent command lines are whole: the agent properties given
// come after the start instant's placeholder, as the run passes them.
func TestPlanShowsAgentProperties(t *testing.T) {
	out, err := planOf(t, func(s *Spec) { s.AgentProperties = map[string]string{"measurementtype": "hdrhistogram+raw"} })
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "-p ybload.start.at=<start time> -p measurementtype=hdrhistogram+raw\n") {
		t.Errorf("plan lacks the agent properties after the start time:\n%s", out)
	}
}

// A secret among the agent properties is refused before anything is
// done, each named: it would be written into run.json and shown on the
// agents' command lines.
func TestAgentPropertiesRefuseSecrets(t *testing.T) {
	s := Defaults()
	s.AgentProperties = map[string]string{"db.passwd": "x", "cassandra.password": "y", "measurementtype": "raw"}
	_, err := s.Resolve()
	if err == nil {
		t.Fatal("accepted")
	}
	for _, want := range []string{"db.passwd: a secret has no place", "cassandra.password: a secret has no place"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%v\nwant it to say %q", err, want)
		}
	}
	if strings.Contains(err.Error(), "measurementtype") {
		t.Errorf("a property that is no secret refused: %v", err)
	}
}

// With the --quick preset itself (not a hand-set duration), every
// profile's estimate and its upper bound, worked out from the preset's
// values: records 20,000, operations 200,000, duration 1m, warm-up 10s,
// and the phases' bounds as above. YCSB's upper bound takes each run to
// its minute, as on hosts slower than the published ones.
func TestPlanEstimateQuickPreset(t *testing.T) {
	ycsbAbout := func(p string) time.Duration {
		prof, err := profiles.Get(p)
		if err != nil {
			t.Fatal(err)
		}
		d := 30 * time.Second
		for _, wl := range prof.Workloads {
			run := time.Minute
			if row := prof.Baseline.Row(wl); row != nil && row.Throughput > 0 {
				run = min(run, time.Duration(200000/row.Throughput*float64(time.Second)))
			}
			d += time.Second + run // 20,000 records at 20,000/s
		}
		return d
	}
	for _, c := range []struct {
		profile       string
		about, atMost time.Duration
	}{
		{"kv-ycql", 30*time.Second + 3*time.Minute, 0},
		// 10 tables × 20,000 rows at 20,000/s, 10 s warm-up, 60 s measured.
		{"sysbench-ysql", 30*time.Second + 8*(10+10+60)*time.Second, 0},
		{"ycsb-ysql", ycsbAbout("ycsb-ysql"), 30*time.Second + 6*(1+60)*time.Second},
		{"ycsb-ycql", ycsbAbout("ycsb-ycql"), 30*time.Second + 6*(1+60)*time.Second},
	} {
		s, err := Load(CommandLine{Presets: []string{"quick"}, Flags: map[string]string{"profile": c.profile, "runs_dir": t.TempDir()}})
		if err != nil {
			t.Fatal(err)
		}
		r, err := s.Resolve()
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		if err := WritePlan(&b, r, planDeps()); err != nil {
			t.Fatal(err)
		}
		want := fmt.Sprintf("expected duration: about %v ", c.about.Round(time.Second))
		if c.atMost > 0 {
			want = fmt.Sprintf("expected duration: about %v, at most %v ", c.about.Round(time.Second), c.atMost)
		}
		if !strings.Contains(b.String(), want) {
			t.Errorf("%s --quick: plan lacks %q:\n%s", c.profile, want, b.String())
		}
	}
}

// With two clients every profile's plan shows how the load is split: each
// client's own part of the keys or operations where their command lines
// differ (YCSB's insertstart, kv's agent index), the threads halved, and
// the making and dropping of tables on one client.
func TestPlanTwoClientsGolden(t *testing.T) {
	all, err := profiles.All()
	if err != nil {
		t.Fatal(err)
	}
	for _, prof := range all {
		r, err := func() (*Resolved, error) {
			s := Defaults()
			s.Profile, s.ClientHosts = prof.Name, 2
			return s.Resolve()
		}()
		if err != nil {
			t.Fatal(err)
		}
		pl, err := MakePlan(r, planDeps())
		if err != nil {
			t.Fatalf("%s: %v", prof.Name, err)
		}
		var b strings.Builder
		for _, st := range pl.Stages {
			if st.Stage != "bench" {
				continue
			}
			fmt.Fprintf(&b, "%s %s: %s\n", st.Workload, st.Phase, st.What)
			if st.Clients > 1 && len(st.Agents) != 0 && len(st.Agents) != st.Clients {
				t.Errorf("%s %s %s: %d command lines for %d clients", prof.Name, st.Workload, st.Phase, len(st.Agents), st.Clients)
			}
		}
		golden.Check(t, "plan-2-clients-"+prof.Name+".txt", []byte(b.String()))
	}
}

// With --repeat 2 the plan lists each workload's phases twice, the
// repetitions of a workload one after the other, each saying which it is
// and naming its own files; its estimate counts every repetition.
func TestPlanShowsRepetitions(t *testing.T) {
	edit := func(n int) func(*Spec) {
		return func(s *Spec) { s.Profile, s.Workloads, s.Repeat = "ycsb-ysql", []string{"workloada", "workloadc"}, n }
	}
	once, err := planOf(t, edit(1))
	if err != nil {
		t.Fatal(err)
	}
	out, err := planOf(t, edit(2))
	if err != nil {
		t.Fatal(err)
	}
	var order []string
	for _, line := range strings.Split(out, "\n") {
		line = strings.TrimSpace(line)
		if !strings.HasPrefix(line, "bench ") {
			continue
		}
		rep, _, _ := strings.Cut(strings.TrimPrefix(line, "bench      repetition "), ",")
		w := "workloada"
		if strings.Contains(line, "workloads/workloadc") {
			w = "workloadc"
		}
		order = append(order, w+" "+rep)
		if k := rep[:2]; !strings.Contains(line, "/"+w+"-"+k+"-") {
			t.Errorf("the bench line of %s %s names no file of its own: %s", w, rep, line)
		}
	}
	want := []string{"workloada r1/2", "workloada r1/2", "workloada r1/2", "workloada r2/2", "workloada r2/2", "workloada r2/2",
		"workloadc r1/2", "workloadc r1/2", "workloadc r1/2", "workloadc r2/2", "workloadc r2/2", "workloadc r2/2"}
	if strings.Join(order, "; ") != strings.Join(want, "; ") {
		t.Errorf("bench stages %q, want %q:\n%s", order, want, out)
	}
	if strings.Contains(once, "repetition") || strings.Contains(once, "-r1-") {
		t.Errorf("a plan without --repeat names repetitions:\n%s", once)
	}
	s := Defaults()
	edit(2)(&s)
	r, err := s.Resolve()
	if err != nil {
		t.Fatal(err)
	}
	pl, err := MakePlan(r, planDeps())
	if err != nil {
		t.Fatal(err)
	}
	s1 := Defaults()
	edit(1)(&s1)
	r1, err := s1.Resolve()
	if err != nil {
		t.Fatal(err)
	}
	pl1, err := MakePlan(r1, planDeps())
	if err != nil {
		t.Fatal(err)
	}
	if got, want := pl.ExpectedSeconds-planOverhead.Seconds(), 2*(pl1.ExpectedSeconds-planOverhead.Seconds()); got != want {
		t.Errorf("expected %v s past the overhead with 2 repetitions, want twice one's: %v", got, want)
	}
}
