package pipeline

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ybbench/ybbench/bench/kv"
	"github.com/ybbench/ybbench/bench/ycql"
	"github.com/ybbench/ybbench/bench/ycsb"
	"github.com/ybbench/ybbench/provision"
)

// writeAgentFiles puts an invocation's private files where the agent finds
// them, 0600 as the pipeline uploads them.
func writeAgentFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
}

func ycqlInput(dir string, user, pw string) agentInput {
	return agentInput{Binding: "ycql", Phase: Phase{Workload: "workloada", Phase: "run"}, Idx: 0, N: 1, Dir: dir, Host: "client-1",
		Params:   paramsView{Records: 10, Operations: 10, Threads: 2, LoadThreads: 2},
		WLArgs:   []string{"--workload", "CassandraKeyValue", "--num_threads_write", "2", "--num_threads_read", "0"},
		Dep:      &provision.Deployment{Flavor: "cassandra", User: user, YCQL: []provision.Endpoint{{Host: "db-1", Addr: "10.0.0.1", Port: 9042}}},
		Password: pw}
}

// With authentication on, the YCSB-over-YCQL agent's binding reads the user
// and the password from the files it is given (as the agent itself parses
// them), and no argument holds the password.
func TestYCQLAgentsAuthenticate(t *testing.T) {
	const pw = "s3cret-Pw-0123456789"
	dir := t.TempDir()
	in := ycqlInput(dir, "ybbench", pw)

	args, files := ycsbFamily{}.invocation(in)
	writeAgentFiles(t, dir, files)
	for _, a := range args {
		if strings.Contains(a, pw) {
			t.Fatalf("the YCSB command line holds the password: %q", args)
		}
	}
	props := ycsb.NewProps()
	name := in.Phase.fileBase() + ".properties"
	if err := props.LoadFile(name, []byte(files[name])); err != nil {
		t.Fatal(err)
	}
	b, err := ycql.NewYCSB(props, nil, func(string) string { return "" })
	if err != nil {
		t.Fatalf("the YCQL binding refuses its properties: %v", err)
	}
	if got := b.Settings(); !strings.Contains(strings.Join(mapValues(got), "|"), "password (user ybbench)") {
		t.Errorf("the binding does not authenticate as ybbench: %v", got)
	}
	if strings.Contains(files[name], pw) {
		t.Errorf("the properties file holds the password itself:\n%s", files[name])
	}

	args, files = kvFamily{}.invocation(in)
	writeAgentFiles(t, dir, files)
	for _, a := range args {
		if strings.Contains(a, pw) {
			t.Fatalf("the kv command line holds the password: %q", args)
		}
	}
	o, err := kv.ParseArgs(args[1:], func(string) string { return "" })
	if err != nil {
		t.Fatalf("ybload kv refuses its arguments: %v", err)
	}
	if o.Username != "ybbench" || o.Password != pw {
		t.Errorf("ybload kv authenticates as %q with password %q, want ybbench with the run's password", o.Username, o.Password)
	}
}

// With authentication off (--db-auth=off: no user in the deployment), the
// agents get no credentials and no password file.
func TestYCQLAgentsNoAuth(t *testing.T) {
	dir := t.TempDir()
	in := ycqlInput(dir, "", "")
	_, files := ycsbFamily{}.invocation(in)
	if len(files) != 1 || strings.Contains(files[in.Phase.fileBase()+".properties"], "cassandra.username") {
		t.Errorf("YCSB files without auth: %v", files)
	}
	args, files := kvFamily{}.invocation(in)
	if len(files) != 0 || slices.Contains(args, "--username") {
		t.Errorf("kv without auth: args %q, files %v", args, files)
	}
}

func mapValues(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for _, v := range m {
		out = append(out, v)
	}
	return out
}
