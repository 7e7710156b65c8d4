// Command cqlping checks that a Cassandra node answers CQL: it opens a real
// native-protocol session, runs `SELECT release_version FROM system.local`
// and prints the version. scripts/testenv/cassandra.sh uses it as its
// readiness check.
//
//	go run ./internal/testenv/cqlping -host 127.0.0.1 -port 9042 -timeout 5s
//
// Exit status 0 and the version on stdout when the node answered; 1 and the
// error on stderr otherwise.
package main

import (
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/gocql/gocql"
)

func main() {
	host := flag.String("host", "127.0.0.1", "node address")
	port := flag.Int("port", 9042, "native transport (CQL) port")
	timeout := flag.Duration("timeout", 5*time.Second, "connect and query timeout")
	proto := flag.Int("proto", 4, "native protocol version (0: negotiate)")
	flag.Parse()

	v, err := ping(*host, *port, *timeout, *proto)
	if err != nil {
		fmt.Fprintf(os.Stderr, "cqlping %s:%d: %v\n", *host, *port, err)
		os.Exit(1)
	}
	fmt.Println(v)
}

func ping(host string, port int, timeout time.Duration, proto int) (string, error) {
	c := gocql.NewCluster(host)
	c.Port = port
	c.ProtoVersion = proto
	c.Timeout = timeout
	c.ConnectTimeout = timeout
	c.NumConns = 1
	c.DisableInitialHostLookup = true
	c.Consistency = gocql.One
	// One connection attempt per pool fill: the caller polls. (MaxRetries 0
	// would make gocql v1.7.0 add a nil connection to the pool and panic.)
	c.ReconnectionPolicy = &gocql.ConstantReconnectionPolicy{MaxRetries: 1, Interval: time.Second}
	c.Logger = quiet{}
	s, err := c.CreateSession()
	if err != nil {
		return "", err
	}
	defer s.Close()
	var v string
	if err := s.Query(`SELECT release_version FROM system.local`).Scan(&v); err != nil {
		return "", err
	}
	return v, nil
}

// quiet drops gocql's own log lines; the error returned says what failed.
type quiet struct{}

func (quiet) Print(...interface{})          {}
func (quiet) Printf(string, ...interface{}) {}
func (quiet) Println(...interface{})        {}
