package testenv

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// OwnCassandra is a Cassandra node of one test's own, for tests that stop,
// kill or break their server (never the shared one). It runs from the same
// cached jars as the shared node, with its own state directory and ports,
// through scripts/testenv/cassandra.sh.
type OwnCassandra struct {
	Dir  string
	Host string
	Port int
}

// StartOwnCassandra starts a node in a directory of the test's own (heap
// 256 MB) and wipes it when the test ends. It fails the test if the node
// does not come up.
func StartOwnCassandra(t testing.TB) *OwnCassandra {
	t.Helper()
	n := &OwnCassandra{Dir: t.TempDir()}
	t.Cleanup(func() {
		if out, err := n.script("wipe"); err != nil {
			t.Logf("wipe the test's Cassandra: %v\n%s", err, out)
		}
	})
	n.Start(t)
	b, err := os.ReadFile(filepath.Join(n.Dir, "cassandra.json"))
	if err != nil {
		t.Fatalf("the test's Cassandra wrote no endpoint: %v", err)
	}
	var e Endpoints
	if err := json.Unmarshal(b, &e); err != nil || e.Cassandra == nil || len(e.Cassandra.Hosts) == 0 {
		t.Fatalf("the test's Cassandra endpoint %s: %v", b, err)
	}
	n.Host, n.Port = e.Cassandra.Hosts[0], e.Cassandra.Port
	return n
}

// Addr is the node's host:port.
func (n *OwnCassandra) Addr() string { return fmt.Sprintf("%s:%d", n.Host, n.Port) }

// Start starts the node (again), on the same ports and data, and waits
// until CQL answers.
func (n *OwnCassandra) Start(t testing.TB) time.Duration {
	t.Helper()
	t0 := time.Now()
	if out, err := n.script("up"); err != nil {
		t.Fatalf("start the test's Cassandra: %v\n%s", err, out)
	}
	return time.Since(t0)
}

// Stop stops the node (SIGTERM, then SIGKILL after a bounded wait).
func (n *OwnCassandra) Stop(t testing.TB) {
	t.Helper()
	if out, err := n.script("down"); err != nil {
		t.Fatalf("stop the test's Cassandra: %v\n%s", err, out)
	}
}

func (n *OwnCassandra) script(verb string) ([]byte, error) {
	cmd := exec.Command(filepath.Join(RepoRoot(), "scripts", "testenv", "cassandra.sh"), verb, n.Dir)
	cmd.Env = append(os.Environ(), "YBBENCH_CASSANDRA_HEAP=256M")
	return cmd.CombinedOutput()
}
