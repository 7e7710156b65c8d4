//go:build integration

package testenv_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/ybbench/ybbench/internal/testenv"
)

// TestIntegrationCassandra checks the shared Cassandra node end to end: a
// keyspace and a table are created, a row is written and read back, and the
// keyspace is dropped again.
func TestIntegrationCassandra(t *testing.T) {
	c := testenv.CassandraFor(t)
	if len(c.Hosts) == 0 || c.Port == 0 {
		t.Fatalf("incomplete Cassandra endpoint: %+v", c)
	}

	cluster := gocql.NewCluster(c.Hosts...)
	cluster.Port = c.Port
	cluster.ProtoVersion = 4
	cluster.Consistency = gocql.One
	cluster.Timeout = 20 * time.Second // schema changes on a 2-core machine
	cluster.ConnectTimeout = 10 * time.Second
	s, err := cluster.CreateSession()
	if err != nil {
		t.Fatalf("connect to %v:%d: %v", c.Hosts, c.Port, err)
	}
	t.Cleanup(s.Close) // after the keyspace is dropped (cleanups run last-in first-out)

	var release string
	if err := s.Query(`SELECT release_version FROM system.local`).Scan(&release); err != nil {
		t.Fatalf("system.local: %v", err)
	}
	if release != c.Version {
		t.Errorf("release_version %q, endpoints file says %q", release, c.Version)
	}

	ks := fmt.Sprintf("ybbench_it_%d", time.Now().UnixNano())
	if err := s.Query(`CREATE KEYSPACE ` + ks +
		` WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}`).Exec(); err != nil {
		t.Fatalf("create keyspace: %v", err)
	}
	t.Cleanup(func() {
		if err := s.Query(`DROP KEYSPACE IF EXISTS ` + ks).Exec(); err != nil {
			t.Errorf("drop keyspace: %v", err)
		}
	})

	if err := s.Query(`CREATE TABLE ` + ks + `.kv (k text PRIMARY KEY, v bigint)`).Exec(); err != nil {
		t.Fatalf("create table: %v", err)
	}
	if err := s.Query(`INSERT INTO `+ks+`.kv (k, v) VALUES (?, ?)`, "answer", int64(42)).Exec(); err != nil {
		t.Fatalf("insert: %v", err)
	}
	var v int64
	if err := s.Query(`SELECT v FROM `+ks+`.kv WHERE k = ?`, "answer").Scan(&v); err != nil {
		t.Fatalf("select: %v", err)
	}
	if v != 42 {
		t.Fatalf("read back %d, want 42", v)
	}
}
