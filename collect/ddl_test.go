package collect_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/ybbench/ybbench/collect"
	"github.com/ybbench/ybbench/profiles"
	"github.com/ybbench/ybbench/record"
)

// The DDL in result.json is the one the agent ran: the prepare-only agent
// writes its summary with the binding's DDL (bench/ycsb's
// TestPrepareOnlySummaryCarriesTheDDL), and Aggregate takes it from there —
// two fields here, where rebuilding it from the profile would have said ten.
func TestAggregateTakesTheDDLTheAgentRan(t *testing.T) {
	p, err := profiles.Get("ycsb-ysql")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	writeFixtureRun(t, dir, p)
	w := p.Workloads[0]
	ran := "CREATE TABLE usertable (ycsb_key text PRIMARY KEY, field0 text, field1 text) SPLIT AT VALUES (('user5'))"
	b, err := json.Marshal(record.PhaseSummary{DDL: ran})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "agents", "client-1", w+"-prepare.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := collect.Aggregate(dir)
	if err != nil {
		t.Fatal(err)
	}
	if res.Workloads[0].DDL != ran {
		t.Errorf("DDL %q, the agent ran %q", res.Workloads[0].DDL, ran)
	}
}
