package main

import (
	"os/exec"
	"strings"
	"testing"
)

// The orchestrator links no load engine: the agent's packages (the YCSB,
// sysbench and KV engines, their pacing and the PostgreSQL binding) are
// ybload's alone. What the agents ran (the DDL included) reaches ybbench
// in their files, not by rebuilding it. (gocql stays: the Cassandra
// flavor's readiness check speaks CQL.)
func TestOrchestratorLinksNoEngine(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	deps := strings.Fields(string(out))
	if len(deps) < 10 {
		t.Fatalf("go list -deps listed %d packages", len(deps))
	}
	for _, d := range deps {
		for _, banned := range []string{"bench/ysql", "bench/ycsb", "bench/pace", "bench/sysbench", "bench/kv"} {
			if d == "github.com/ybbench/ybbench/"+banned {
				t.Errorf("ybbench links %s", d)
			}
		}
	}
}
