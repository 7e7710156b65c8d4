package ycsb

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/ybbench/ybbench/record"
)

// The measurement names a gate may give for YCSB (record.FamilyOperations)
// are this engine's catalog, less CLEANUP.
func TestCatalogIsTheFamilysOperations(t *testing.T) {
	want := slices.DeleteFunc(slices.Clone(Catalog.Ops), func(s string) bool { return s == "CLEANUP" })
	if got := record.FamilyOperations["ycsb"]; !slices.Equal(got, want) {
		t.Errorf("record.FamilyOperations[ycsb] = %v, the catalog has %v", got, want)
	}
}

// creatingBinding stands in for a database binding that creates its table
// when prepared (the null binding's data path, a DDL of its own).
type creatingBinding struct {
	NullBinding
	ddl string
}

func (b *creatingBinding) Prepare(context.Context, bool) error {
	b.ddl = "CREATE TABLE usertable (ycsb_key text PRIMARY KEY, field0 text, field1 text) SPLIT AT VALUES (('user5'))"
	return nil
}

func (b *creatingBinding) DDL() string { return b.ddl }

// The prepare-only agent (ybload.prepare.only) writes its summary with the
// DDL its binding ran, where collect reads it (record.PhaseSummary;
// collect's TestAggregateTakesTheDDLTheAgentRan is the other half).
func TestPrepareOnlySummaryCarriesTheDDL(t *testing.T) {
	summary := filepath.Join(t.TempDir(), "workloada-prepare.json")
	var out, errb bytes.Buffer
	bound := &creatingBinding{}
	env := &Env{Stdout: &out, Stderr: &errb, Version: "test", Bindings: map[string]BindingFactory{
		"creating": func(*Props, *slog.Logger) (Binding, error) { return bound, nil }}}
	args := []string{"load", "creating", "-P", "workloads/workloada", "-p", "fieldcount=2",
		"-p", "ybload.prepare.only=true", "-p", "ybload.summary=" + summary}
	if code := Main(context.Background(), args, env); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	b, err := os.ReadFile(summary)
	if err != nil {
		t.Fatal(err)
	}
	var s record.PhaseSummary
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	if s.DDL != bound.ddl || bound.ddl == "" {
		t.Errorf("summary DDL %q, the binding ran %q", s.DDL, bound.ddl)
	}
}
