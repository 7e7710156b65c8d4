package cassandra

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ybbench/ybbench/infra"
	"github.com/ybbench/ybbench/internal/exitcode"
	"github.com/ybbench/ybbench/provision"
)

// fakeHosts stands for db hosts: it answers the flavor's scripts by their
// step names, remembers which nodes run, and serves as their CQL probe.
type fakeHosts struct {
	mu      sync.Mutex
	steps   []string          // host:step, in order
	puts    []string          // host:dst
	have    map[string]string // host → sha256 of the artifacts it has
	running map[string]bool   // host → node started
	// exited: a host whose node dies at once; silent: a host whose node
	// runs but never shows up in the others' peers.
	exited, silent string
	// oldTokens: the nodes own the tokens of a cluster of another size.
	oldTokens bool
	hosts     []infra.Host
}

func newFakeHosts(c *infra.Cluster) *fakeHosts {
	return &fakeHosts{have: map[string]string{}, running: map[string]bool{}, hosts: c.ByRole(infra.RoleDB)}
}

func (f *fakeHosts) Run(ctx context.Context, h infra.Host, script string, opts ...provision.RunOption) (provision.Result, error) {
	o := provision.Apply(opts)
	f.mu.Lock()
	defer f.mu.Unlock()
	f.steps = append(f.steps, h.Name+":"+o.Step)
	out := ""
	switch o.Step {
	case "cassandra-prepare":
		out = "CASS java /usr/lib/jvm/java-17-openjdk-amd64/bin/java\nCASS java_version 17.0.15\n"
		if sha := f.have[h.Name]; sha != "" {
			out += "CASS have_sha256 " + sha + "\n"
		}
	case "cassandra-install":
		i := strings.Index(script, "\nexpected=")
		f.have[h.Name] = strings.Fields(script[i+len("\nexpected="):])[0]
		out = "CASS extract done\n"
	case "cassandra-start":
		if f.running[h.Name] {
			out = "CASS pid 100\nCASS start skipped (running with the same configuration)\n"
		} else {
			f.running[h.Name] = true
			out = "CASS pid 100\nCASS start started\n"
		}
	case "cassandra-status":
		if h.Name == f.exited {
			out = "CASS status exited (pid 100)\nCASS out java.lang.OutOfMemoryError\n"
		} else {
			out = "CASS status running (pid 100)\n"
		}
	case "cassandra-stop", "cassandra-wipe":
		delete(f.running, h.Name)
		out = "CASS stopped stopped (pid 100, SIGTERM)\n"
	}
	return provision.Result{Host: h.Name, Stdout: []byte(out)}, nil
}

func (f *fakeHosts) Put(ctx context.Context, h infra.Host, dst string, src io.Reader, mode fs.FileMode) error {
	if _, err := io.Copy(io.Discard, src); err != nil {
		return err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.puts = append(f.puts, h.Name+":"+dst)
	return nil
}

func (f *fakeHosts) Get(ctx context.Context, h infra.Host, src string, dst io.Writer) error {
	return errors.New("not used")
}

// probe answers as a healthy cluster of the running nodes would.
func (f *fakeHosts) probe(ctx context.Context, h infra.Host) (NodeState, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.running[h.Name] || h.Name == f.exited {
		return NodeState{}, fmt.Errorf("dial tcp %s:9042: connect: connection refused", h.PrivateIP)
	}
	st := NodeState{ReleaseVersion: "5.0.9", SchemaVersion: "11111111-2222", HostID: "id-" + h.Name, Bootstrapped: "COMPLETED", Gossip: map[string]string{}}
	size := len(f.hosts)
	if f.oldTokens {
		size++
	}
	for i, o := range f.hosts {
		if o.Name == h.Name {
			st.Tokens = []string{Tokens(size)[i]}
		}
	}
	for _, o := range f.hosts {
		if o.Name != h.Name && f.running[o.Name] && o.Name != f.silent {
			st.Peers = append(st.Peers, Peer{Addr: o.PrivateIP, HostID: "id-" + o.Name, SchemaVersion: st.SchemaVersion})
			st.Gossip[o.PrivateIP] = "NORMAL,0"
		}
	}
	return st, nil
}

func (f *fakeHosts) stepsOf(step string) []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	for _, s := range f.steps {
		if strings.HasSuffix(s, ":"+step) {
			out = append(out, strings.TrimSuffix(s, ":"+step))
		}
	}
	return out
}

func TestInstallStartsTheSeedThenOneNodeAtATime(t *testing.T) {
	c := sampleCluster()
	fh := newFakeHosts(c)
	f := New(WithProbe(fh.probe), WithPollInterval(time.Millisecond), WithTarballDir(t.TempDir()))
	spec := provision.FlavorSpec{Source: fakeSource(t), RF: 3, RunID: "r1", NoAuth: true}
	dep, err := f.Install(context.Background(), fh, c, spec)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(fh.stepsOf("cassandra-start"), " "); got != "db1 db2 db3" {
		t.Errorf("start order %s", got)
	}
	// Each start follows the previous node's join: no start while a
	// prepare or install still runs, starts strictly in order.
	var order []string
	for _, s := range fh.steps {
		if strings.HasSuffix(s, "cassandra-start") || strings.HasSuffix(s, "cassandra-install") {
			order = append(order, s)
		}
	}
	if i := slices.Index(order, "db1:cassandra-start"); i != 3 {
		t.Errorf("steps %v: the seed must start after every host is installed", order)
	}
	if len(fh.puts) != 3 {
		t.Errorf("uploads %v, want one per db host", fh.puts)
	}
	if dep.Flavor != Name || dep.Version != "5.0.9" || len(dep.YCQL) != 3 || len(dep.Processes) != 3 {
		t.Fatalf("deployment %+v", dep)
	}
	// Without authentication, no credentials are handed out.
	if dep.User != "" || dep.PasswordFile != "" {
		t.Errorf("credentials %q, %q with authentication off", dep.User, dep.PasswordFile)
	}
	for i, h := range c.ByRole(infra.RoleDB) {
		if e := dep.YCQL[i]; e.Host != h.Name || e.Addr != h.PrivateIP || e.Port != 9042 {
			t.Errorf("endpoint %+v", e)
		}
		if p := dep.Processes[i]; p.Host != h.Name || p.Name != "cassandra" || p.PIDFile != h.Base+"/ybbench/cassandra/run/cassandra.pid" {
			t.Errorf("process %+v", p)
		}
		if dep.Settings["yaml.initial_token@"+h.Name] != Tokens(3)[i] || dep.Settings["source.transfer@"+h.Name] != "uploaded" {
			t.Errorf("%s: settings %v", h.Name, dep.Settings)
		}
	}
	for k, want := range map[string]string{"yaml.num_tokens": "1", "yaml.auto_bootstrap": "false", "yaml.seed_provider": "10.213.0.2:7000",
		"heap": "512M", "yaml.authenticator": "AllowAllAuthenticator", "auth": "off", "yaml.cluster_name": "ybbench-r1", "rf": "3",
		"java.version@db2": "17.0.15", "yaml.commitlog_sync_period": "10000ms"} {
		if dep.Settings[k] != want {
			t.Errorf("settings[%s] = %q, want %q", k, dep.Settings[k], want)
		}
	}

	// Again: nothing uploaded, every node kept.
	fh.puts = nil
	dep, err = f.Install(context.Background(), fh, c, spec)
	if err != nil {
		t.Fatal(err)
	}
	if len(fh.puts) != 0 {
		t.Errorf("second install uploaded %v", fh.puts)
	}
	for _, h := range []string{"db1", "db2", "db3"} {
		if !strings.HasPrefix(dep.Settings["start@"+h], "skipped") || !strings.HasPrefix(dep.Settings["source.transfer@"+h], "skipped") {
			t.Errorf("%s: %q, %q", h, dep.Settings["start@"+h], dep.Settings["source.transfer@"+h])
		}
	}

	if err := f.Stop(context.Background(), fh, c); err != nil {
		t.Fatal(err)
	}
	if err := f.Wipe(context.Background(), fh, c); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(fh.stepsOf("cassandra-wipe"), " "); len(got) != len("db1 db2 db3") {
		t.Errorf("wiped %q", got)
	}
}

func TestInstallSaysWhatItLastSaw(t *testing.T) {
	c := sampleCluster()
	fh := newFakeHosts(c)
	fh.silent = "db2"
	f := New(WithProbe(fh.probe), WithPollInterval(time.Millisecond), WithReadyTimeout(200*time.Millisecond), WithTarballDir(t.TempDir()))
	_, err := f.Install(context.Background(), fh, c, provision.FlavorSpec{Source: fakeSource(t), NoAuth: true})
	var re *ReadyError
	if !errors.As(err, &re) || exitcode.Of(err) != exitcode.Provision {
		t.Fatalf("%v (exit %d), want a ReadyError with exit 4", err, exitcode.Of(err))
	}
	msg := err.Error()
	for _, want := range []string{"db2 has not joined after", "db1 does not list db2 in system.peers yet", "last seen: db1: 5.0.9 COMPLETED", "on the hosts: db1: running"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error lacks %q:\n%s", want, msg)
		}
	}
	if got := strings.Join(fh.stepsOf("cassandra-start"), " "); got != "db1 db2" {
		t.Errorf("started %s: db3 must wait for db2", got)
	}
}

func TestInstallFailsAtOnceWhenANodeDies(t *testing.T) {
	c := sampleCluster()
	fh := newFakeHosts(c)
	fh.exited = "db3"
	f := New(WithProbe(fh.probe), WithPollInterval(time.Millisecond), WithReadyTimeout(time.Hour), WithTarballDir(t.TempDir()))
	t0 := time.Now()
	_, err := f.Install(context.Background(), fh, c, provision.FlavorSpec{Source: fakeSource(t), NoAuth: true})
	if err == nil || !strings.Contains(err.Error(), "db3's node exited") || !strings.Contains(err.Error(), "OutOfMemoryError") {
		t.Fatalf("%v", err)
	}
	if time.Since(t0) > time.Minute {
		t.Errorf("took %s: a dead node must not be waited for", time.Since(t0))
	}
}

func TestInstallRefusesANodeWithTheTokensOfAnotherCluster(t *testing.T) {
	c := sampleCluster()
	fh := newFakeHosts(c)
	fh.oldTokens = true
	f := New(WithProbe(fh.probe), WithPollInterval(time.Millisecond), WithTarballDir(t.TempDir()))
	_, err := f.Install(context.Background(), fh, c, provision.FlavorSpec{Source: fakeSource(t), NoAuth: true})
	if err == nil || !strings.Contains(err.Error(), "db1 owns tokens [-6917529027641081856], not -6148914691236517206") || !strings.Contains(err.Error(), "Wipe") {
		t.Fatalf("%v", err)
	}
}

func TestInstallRefusesBadInput(t *testing.T) {
	src := fakeSource(t)
	for _, c := range []struct {
		name    string
		cluster func(*infra.Cluster)
		spec    provision.FlavorSpec
		want    string
	}{
		{"no db host", func(c *infra.Cluster) { c.Hosts = c.Hosts[3:] }, provision.FlavorSpec{Source: src}, "no db host"},
		{"bad setting", nil, provision.FlavorSpec{Source: src, Settings: map[string]string{"rpc_address": "0.0.0.0"}}, `unknown setting "rpc_address"`},
		{"sha256", nil, provision.FlavorSpec{Source: src, SHA256: "ab"}, "SHA256 does not apply"},
		{"version", nil, provision.FlavorSpec{Source: src, Version: "4.1.5"}, "version 4.1.5 was asked for"},
		{"no cache", nil, provision.FlavorSpec{Source: "/nonexistent/home"}, FetchCommand},
		{"root user", func(c *infra.Cluster) { c.Hosts[1].ServiceUser = "root" }, provision.FlavorSpec{Source: src}, "unprivileged user"},
		{"same IP", func(c *infra.Cluster) { c.Hosts[2].PrivateIP = c.Hosts[1].PrivateIP }, provision.FlavorSpec{Source: src}, "is also"},
		{"bad base", func(c *infra.Cluster) { c.Hosts[0].Base = "/runs/x/../../etc" }, provision.FlavorSpec{Source: src}, "not clean (want /etc)"},
		{"space in data dir", func(c *infra.Cluster) { c.Hosts[0].DataDirs = []string{"/mnt/my disk"} }, provision.FlavorSpec{Source: src}, `directory "/mnt/my disk": want letters`},
		{"two runs", nil, provision.FlavorSpec{Source: src, RunID: "r2"}, `the run id "r2" and the cluster's name "r1"`},
		{"no run", func(c *infra.Cluster) { c.Name = "" }, provision.FlavorSpec{Source: src}, "must be one run's"},
		// Authentication on (the default) needs somewhere to keep the
		// generated passwords.
		{"no secrets dir", nil, provision.FlavorSpec{Source: src}, "no secrets directory"},
	} {
		t.Run(c.name, func(t *testing.T) {
			cl := sampleCluster()
			if c.cluster != nil {
				c.cluster(cl)
			}
			fh := newFakeHosts(cl)
			_, err := New(WithProbe(fh.probe), WithTarballDir(t.TempDir())).Install(context.Background(), fh, cl, c.spec)
			if err == nil || !strings.Contains(err.Error(), c.want) || exitcode.Of(err) != exitcode.Config {
				t.Errorf("%v (exit %d), want exit 2 saying %q", err, exitcode.Of(err), c.want)
			}
			if len(fh.steps) != 0 {
				t.Errorf("ran %v before refusing", fh.steps)
			}
		})
	}
}

func TestClusterName(t *testing.T) {
	for in, want := range map[string]string{"": "ybbench", "r1": "ybbench-r1", "run 2026/11 'x'": "ybbench-run-2026-11-x",
		strings.Repeat("a", 60): "ybbench-" + strings.Repeat("a", 40)} {
		if got := clusterName(in); got != want {
			t.Errorf("clusterName(%q) = %q, want %q", in, got, want)
		}
	}
}
