package ysql

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ybbench/ybbench/bench/ycsb"
)

func propsOf(t *testing.T, kv ...string) *ycsb.Props {
	t.Helper()
	p := ycsb.NewProps()
	for i := 0; i+1 < len(kv); i += 2 {
		p.SetFlag(kv[i], kv[i+1], "-p")
	}
	return p
}

// ysql.* beat db.*, an inline password beats a file's, the environment
// comes last.
func TestPasswordPrecedence(t *testing.T) {
	dir := t.TempDir()
	file := func(name, pw string) string {
		f := filepath.Join(dir, name)
		if err := os.WriteFile(f, []byte(pw+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		return f
	}
	ysqlFile, dbFile := file("y", "from-ysql-file"), file("d", "from-db-file")
	env := func(string) string { return "from-env" }
	url := []string{"db.url", "jdbc:postgresql://h:5433/ycsb"}
	for _, c := range []struct {
		kv   []string
		want string
	}{
		{[]string{"ysql.password", "inline", "ysql.password.file", ysqlFile, "db.passwd.file", dbFile}, "inline"},
		{[]string{"ysql.password.file", ysqlFile, "db.passwd", "db-inline"}, "from-ysql-file"},
		{[]string{"db.passwd", "db-inline", "db.passwd.file", dbFile}, "db-inline"},
		{[]string{"db.passwd.file", dbFile}, "from-db-file"},
		{nil, "from-env"},
	} {
		cfg, err := ReadConfig(propsOf(t, append(url, c.kv...)...), env)
		if err != nil {
			t.Fatal(err)
		}
		if cfg.Password != c.want {
			t.Errorf("%q: password %q, want %q", c.kv, cfg.Password, c.want)
		}
	}
}

// Bad settings are configuration errors naming the property, found before
// any connection.
func TestConfigBadInput(t *testing.T) {
	for _, c := range []struct {
		kv   []string
		want string
	}{
		{[]string{"ysql.hosts", "127.0.0.1", "ysql.port", "70000"}, "ysql.port=70000: not a port"},
		{[]string{"ysql.hosts", "127.0.0.1:0"}, `ysql.hosts: bad port in "127.0.0.1:0"`},
		{[]string{"ysql.url", "postgres://h:99999/db"}, "ysql.url: \"postgres://h:99999/db\": bad port"},
		{[]string{"db.url", "jdbc:postgresql://h:5433/ycsb", "ysql.sslmode", "bogus"}, "ysql.sslmode=bogus: want disable"},
		{[]string{"db.url", "jdbc:postgresql://h:5433/ycsb", "ysql.createtable", "yes"}, `ysql.createtable="yes": want true or false`},
		{[]string{"db.url", "mysql://h/x"}, "is not a jdbc:postgresql:// or postgres:// URL"},
		// A URL that does not parse, with a setting applied to every
		// endpoint after it: an error, not a panic on the endpoint it left.
		{[]string{"ysql.url", "mysql://h/x", "ysql.sslmode", "require"}, "ysql.url: \"mysql://h/x\" is not a jdbc:postgresql://"},
		{[]string{"ysql.url", "::", "ysql.sslrootcert", "/ca.pem"}, "ysql.url: \"::\" is not a jdbc:postgresql://"},
		{[]string{"db.url", "jdbc:postgresql://h:5433/ycsb", "ysql.socket", "epoll"}, "ysql.socket=epoll: want poller or blocking"},
		{nil, "no database given"},
	} {
		_, err := ReadConfig(propsOf(t, c.kv...), nil)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.kv, err, c.want)
		}
	}
}

// With db.url the binding's per-thread banner is YCSB's JDBC binding's: a
// line per URL as given, then the shard count, db.batchsize and
// jdbc.fetchsize (-1 when unset, as YCSB prints them); with the
// extensions that name servers otherwise, none.
func TestThreadBanner(t *testing.T) {
	env := func(string) string { return "" }
	cfg, err := ReadConfig(propsOf(t, "db.url", "jdbc:postgresql://a:5433/ycsb;jdbc:postgresql://b:5433/ycsb?sslmode=disable;"), env)
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join((&Binding{cfg: cfg}).ThreadBanner(), "\n")
	want := "Adding shard node URL: jdbc:postgresql://a:5433/ycsb\nAdding shard node URL: jdbc:postgresql://b:5433/ycsb?sslmode=disable\nUsing shards: 2, batchSize:-1, fetchSize: -1"
	if got != want {
		t.Errorf("banner:\n%s\nwant:\n%s", got, want)
	}
	cfg, err = ReadConfig(propsOf(t, "db.url", "jdbc:postgresql://a:5433/ycsb", "db.batchsize", "1000", "jdbc.fetchsize", "10"), env)
	if err != nil {
		t.Fatal(err)
	}
	if got := (&Binding{cfg: cfg}).ThreadBanner(); got[len(got)-1] != "Using shards: 1, batchSize:1000, fetchSize: 10" {
		t.Errorf("banner %q", got)
	}
	cfg, err = ReadConfig(propsOf(t, "ysql.url", "postgres://a:5433/ycsb"), env)
	if err != nil {
		t.Fatal(err)
	}
	if got := (&Binding{cfg: cfg}).ThreadBanner(); got != nil {
		t.Errorf("ysql.url banner %q, want none", got)
	}
}
