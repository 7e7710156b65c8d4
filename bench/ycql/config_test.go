package ycql

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/ybbench/ybbench/bench/ycsb"
)

func TestParseConsistency(t *testing.T) {
	for in, want := range map[string]gocql.Consistency{"ONE": gocql.One, "quorum": gocql.Quorum, " LOCAL_ONE ": gocql.LocalOne, "ALL": gocql.All} {
		got, err := ParseConsistency(in)
		if err != nil || got != want {
			t.Errorf("ParseConsistency(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	if _, err := ParseConsistency("MOSTLY"); err == nil || !strings.Contains(err.Error(), `"MOSTLY"`) {
		t.Errorf("MOSTLY: %v", err)
	}
}

func TestParseNodes(t *testing.T) {
	h, p, err := ParseNodes("10.0.0.1:9042,10.0.0.2:9042, [::1]:9042")
	if err != nil || p != 9042 || strings.Join(h, " ") != "10.0.0.1 10.0.0.2 ::1" {
		t.Errorf("got %v %d %v", h, p, err)
	}
	for _, bad := range []string{"", "10.0.0.1", "10.0.0.1:", "10.0.0.1:x", "10.0.0.1:70000", "a:9042,b:9043", "a:9042,,b:9042", ":9042"} {
		if _, _, err := ParseNodes(bad); err == nil {
			t.Errorf("ParseNodes(%q) accepted", bad)
		}
	}
}

func props(t *testing.T, file string, flags ...string) *ycsb.Props {
	t.Helper()
	p := ycsb.NewProps()
	if err := p.LoadFile("db.properties", []byte(file)); err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(flags); i += 2 {
		p.SetFlag(flags[i], flags[i+1], "-p")
	}
	return p
}

// The seed's db.properties gives the reference binding's defaults.
func TestNewYCSBDefaults(t *testing.T) {
	b, err := NewYCSB(props(t, "hosts=10.0.0.1,10.0.0.2\nport=9042\ncassandra.username=yugabyte\n"), nil, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	c := b.cfg
	if b.readCL != gocql.One || b.writeCL != gocql.One || c.ConnsPerHost != 2 || c.Keyspace != "ycsb" ||
		c.ConnectTimeout != 5*time.Second || c.ReadTimeout != 12*time.Second || c.Retry.Max != 1 || c.Retry.Idempotent ||
		c.Username != "yugabyte" || c.Password != "" || c.TLS != nil || len(c.Hosts) != 2 || b.table != "usertable" || len(b.fields) != 10 {
		t.Errorf("defaults: %+v read %v write %v", c, b.readCL, b.writeCL)
	}
}

func TestNewYCSBPasswordSources(t *testing.T) {
	env := func(k string) string {
		if k == PasswordEnv {
			return "from-env"
		}
		return ""
	}
	b, err := NewYCSB(props(t, "hosts=h\ncassandra.username=u\n"), nil, env)
	if err != nil || b.cfg.Password != "from-env" {
		t.Fatalf("env: %v %q", err, b.cfg.Password)
	}
	f := filepath.Join(t.TempDir(), "pw")
	os.WriteFile(f, []byte("from-file\n"), 0o600)
	b, err = NewYCSB(props(t, "hosts=h\ncassandra.username=u\ncassandra.password.file="+f+"\n"), nil, env)
	if err != nil || b.cfg.Password != "from-file" {
		t.Fatalf("file: %v %q", err, b.cfg.Password)
	}
}

// Bad properties are all reported at once, each naming where it was set.
func TestNewYCSBBadProperties(t *testing.T) {
	_, err := NewYCSB(props(t, "hosts=h\ncassandra.readconsistencylevel=MOSTLY\ncassandra.tracing=true\n",
		"cassandra.writeconsistencylevel", "SOME", "ycql.flavor", "oracle"), nil, nil)
	if err == nil {
		t.Fatal("accepted")
	}
	for _, want := range []string{"db.properties:2", `"MOSTLY"`, "command line (-p)", `"SOME"`, "cassandra.tracing", "db.properties:3"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
	_, err = NewYCSB(props(t, "port=9042\n"), nil, nil)
	if err == nil || !strings.Contains(err.Error(), "missing property hosts") {
		t.Errorf("no hosts: %v", err)
	}
	_, err = NewYCSB(props(t, "hosts=h\n", "ycql.flavor", "oracle"), nil, nil)
	if err == nil || !strings.Contains(err.Error(), "oracle") {
		t.Errorf("bad flavor: %v", err)
	}
}

// A CA file that cannot be read is a setting's error, found before any
// connection (it was a database error at the first dial).
func TestNewYCSBMissingCAFile(t *testing.T) {
	ca := filepath.Join(t.TempDir(), "nope.pem")
	_, err := NewYCSB(props(t, "hosts=h\n", "cassandra.useSSL", "true", "ycql.ssl.ca", ca), nil, nil)
	if err == nil || !strings.Contains(err.Error(), "TLS CA file") || !strings.Contains(err.Error(), ca) {
		t.Fatalf("missing CA file: %v", err)
	}
}
