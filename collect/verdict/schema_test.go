package verdict

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ybbench/ybbench/collect"
)

// A verdict written from a fixture result, with every kind of outcome,
// validates against verdict.schema.json as it lies on disk; changes the
// schema forbids are caught.
func TestWrittenVerdictMatchesSchema(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "testdata", "ycsb-ysql.result.json"))
	if err != nil {
		t.Fatal(err)
	}
	r, err := collect.ReadResult(b)
	if err != nil {
		t.Fatal(err)
	}
	f := gateFile(t, `baseline: published
gates:
  - {workload: "*", metric: throughput, op: ">=", ratio: 0.9}
  - {workload: workloada, operation: READ, metric: p99, op: "<=", ratio: 1.15}
  - {workload: "*", metric: error_rate, op: "<=", value: 0.001}
`)
	v := Evaluate(f, r, Published{r}, t0)
	if v.Passed == 0 || v.Failed == 0 || v.CannotEvaluate == 0 {
		t.Fatalf("want every outcome in the fixture's verdict: %d %d %d", v.Passed, v.Failed, v.CannotEvaluate)
	}
	path := filepath.Join(t.TempDir(), VerdictFile)
	if err := Write(path, v); err != nil {
		t.Fatal(err)
	}
	doc, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	schema, err := os.ReadFile("verdict.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := collect.ValidateAgainst(schema, doc); err != nil {
		t.Fatalf("the written verdict: %v", err)
	}
	for _, c := range []struct {
		name   string
		change func(m map[string]any)
		want   string
	}{
		{"another version", func(m map[string]any) { m["schema"] = "ybbench-verdict/0" }, "$.schema"},
		{"an unknown outcome", func(m map[string]any) { m["outcome"] = "maybe" }, "$.outcome"},
		{"a gate without its rule", func(m map[string]any) { delete(m["gates"].([]any)[0].(map[string]any), "rule") }, `lacks the required "rule"`},
		{"an unknown metric", func(m map[string]any) { m["gates"].([]any)[0].(map[string]any)["metric"] = "p98" }, "$.gates[0].metric"},
		{"an extra field", func(m map[string]any) { m["exit"] = 99 }, `has "exit"`},
	} {
		var m map[string]any
		if err := json.Unmarshal(doc, &m); err != nil {
			t.Fatal(err)
		}
		c.change(m)
		bad, _ := json.Marshal(m)
		if err := Validate(bad); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error with %q", c.name, err, c.want)
		}
	}
}
