package collect_test

import (
	"bytes"
	"context"
	"log/slog"
	"path/filepath"
	"testing"

	"github.com/ybbench/ybbench/bench/ycsb"
	"github.com/ybbench/ybbench/collect"
	"github.com/ybbench/ybbench/internal/profiles"
)

// creatingBinding stands in for a database binding that creates its table
// when prepared (the null binding's data path, a DDL of its own).
type creatingBinding struct {
	ycsb.NullBinding
	ddl string
}

func (b *creatingBinding) Prepare(context.Context, bool) error {
	b.ddl = "CREATE TABLE usertable (ycsb_key text PRIMARY KEY, field0 text, field1 text) SPLIT AT VALUES (('user5'))"
	return nil
}

func (b *creatingBinding) DDL() string { return b.ddl }

// The DDL in result.json is the one the agent ran: the prepare-only agent
// (ybload.prepare.only) writes its summary with the binding's DDL, and
// Aggregate takes it from there — two fields here, where rebuilding it
// from the profile would have said ten.
func TestAggregateTakesTheDDLTheAgentRan(t *testing.T) {
	p, err := profiles.Get("ycsb-ysql")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	writeFixtureRun(t, dir, p)
	w := p.Workloads[0]
	summary := filepath.Join(dir, "agents", "client-1", w+"-prepare.json")
	var out, errb bytes.Buffer
	bound := &creatingBinding{}
	env := &ycsb.Env{Stdout: &out, Stderr: &errb, Version: "test", Bindings: map[string]ycsb.BindingFactory{
		"creating": func(*ycsb.Props, *slog.Logger) (ycsb.Binding, error) { return bound, nil }}}
	args := []string{"load", "creating", "-P", "workloads/" + w, "-p", "fieldcount=2",
		"-p", "ybload.prepare.only=true", "-p", "ybload.summary=" + summary}
	if code := ycsb.Main(context.Background(), args, env); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	res, err := collect.Aggregate(dir)
	if err != nil {
		t.Fatal(err)
	}
	if res.Workloads[0].DDL != bound.ddl || bound.ddl == "" {
		t.Errorf("DDL %q, the agent ran %q", res.Workloads[0].DDL, bound.ddl)
	}
}
