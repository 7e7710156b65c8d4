package agentrun_test

import (
	"testing"

	"github.com/ybbench/ybbench/infra"
	"github.com/ybbench/ybbench/internal/golden"
	"github.com/ybbench/ybbench/pipeline/agentrun"
)

// The remote scripts, rendered for a base that needs quoting, pinned and
// checked by bash -n.
func TestScriptsGolden(t *testing.T) {
	h := infra.Host{Name: "client-1", Base: "/opt/it's here", ServiceUser: "ybbench"}
	inv, err := agentrun.Build(ysqlInput("run", 0, 1))
	if err != nil {
		t.Fatal(err)
	}
	ph := agentrun.Phase{Workload: "workloadd", Phase: "run"}
	shared := h
	shared.Shared = true
	for _, c := range []struct {
		name   string
		render func() (string, error)
	}{
		{"ship", func() (string, error) { return agentrun.ShipScript(h) }},
		{"start", func() (string, error) { return agentrun.StartScript(h, ph, inv) }},
		{"stop", func() (string, error) { return agentrun.StopScript(h) }},
		{"fetch", func() (string, error) {
			return agentrun.FetchScript(h, []string{"workloada-run.jsonl", "workloada-run.json", "workloada-run.dat"})
		}},
		{"cpu-node", func() (string, error) { return agentrun.CPUScript(h, agentrun.OwnDatabase, 1, 1) }},
		{"cpu-process", func() (string, error) { return agentrun.CPUScript(shared, agentrun.OwnDatabase, 1, 1) }},
		{"cpu-agent", func() (string, error) { return agentrun.CPUScript(shared, agentrun.OwnAgent, 86400, 1) }},
	} {
		s, err := c.render()
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		golden.BashSyntax(t, c.name, s)
		golden.Check(t, c.name+".sh", []byte(s))
	}
}
