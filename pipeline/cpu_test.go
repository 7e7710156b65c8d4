package pipeline

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"sync"
	"testing"
	"time"

	"github.com/ybbench/ybbench/infra"
	"github.com/ybbench/ybbench/provision"
	"github.com/ybbench/ybbench/record/hostcpu"
)

// cpuRunner answers the CPU script with readings whose busy ticks grow by
// 10 per reading, counting the readings per host.
type cpuRunner struct {
	mu    sync.Mutex
	reads map[string]int
}

func (c *cpuRunner) Run(ctx context.Context, h infra.Host, _ string, opts ...provision.RunOption) (provision.Result, error) {
	var o provision.RunOptions
	for _, f := range opts {
		f(&o)
	}
	reading := func() string {
		c.mu.Lock()
		defer c.mu.Unlock()
		n := c.reads[h.Name]
		c.reads[h.Name]++
		return fmt.Sprintf(`{"mode":"node","busy_ticks":%d,"total_ticks":%d,"hz":100,"cores":2,"at":%d}`, 10*n, 100*n, n)
	}
	if o.Stdout == nil { // one reading
		return provision.Result{Host: h.Name, Stdout: []byte(reading())}, nil
	}
	// A stream: a reading each time the previous one was taken in, until
	// the sampler stops it.
	for ctx.Err() == nil {
		fmt.Fprintln(o.Stdout, reading())
		select {
		case <-ctx.Done():
		case <-time.After(time.Millisecond):
		}
	}
	return provision.Result{Host: h.Name}, ctx.Err()
}

func (c *cpuRunner) Put(context.Context, infra.Host, string, io.Reader, fs.FileMode) error {
	return nil
}
func (c *cpuRunner) Get(context.Context, infra.Host, string, io.Writer) error { return nil }

// The db hosts' CPU is read when the measured phase starts, every so often
// while it runs, and when it ends; the file keeps the readings in between
// as the span's samples, in order. Client hosts are read alike, into the
// file's clients.
func TestCPUSampledDuringThePhase(t *testing.T) {
	rn := &cpuRunner{reads: map[string]int{}}
	r := &Run{dir: t.TempDir(), runner: rn, cluster: &infra.Cluster{Hosts: []infra.Host{
		{Name: "db1", Roles: []infra.Role{infra.RoleDB}}, {Name: "db2", Roles: []infra.Role{infra.RoleDB}},
		{Name: "client1", Roles: []infra.Role{infra.RoleClient}}}}}
	s := r.startCPU(context.Background(), 5*time.Millisecond)
	deadline := time.Now().Add(10 * time.Second)
	for {
		rn.mu.Lock()
		n := min(rn.reads["db1"], rn.reads["db2"])
		rn.mu.Unlock()
		if n >= 4 || time.Now().After(deadline) {
			break
		}
		time.Sleep(time.Millisecond)
	}
	dbs, clients := s.stop(context.Background(), r)
	if err := r.writeCPU(Phase{Workload: "workloada", Phase: "run"}, dbs, clients); err != nil {
		t.Fatal(err)
	}
	f, err := hostcpu.Read(r.dir, "workloada", "run")
	if err != nil || f == nil {
		t.Fatalf("cpu file: %v", err)
	}
	if len(f.Hosts) != 2 || len(f.Clients) != 1 || f.Clients["client1"].Readings() == nil {
		t.Fatalf("hosts %v, clients %v", f.Hosts, f.Clients)
	}
	all := map[string]hostcpu.Span{"client1": f.Clients["client1"]}
	for h, s := range f.Hosts {
		all[h] = s
	}
	for host, span := range all {
		got := span.Readings()
		if len(got) != rn.reads[host] || len(span.Samples) < 2 {
			t.Errorf("%s: %d readings kept (%d samples), %d taken", host, len(got), len(span.Samples), rn.reads[host])
		}
		for i, x := range got {
			if x.Busy != int64(10*i) {
				t.Errorf("%s: reading %d has busy %d, want %d (in the order read)", host, i, x.Busy, 10*i)
			}
		}
	}
}
