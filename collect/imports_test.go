package collect_test

import (
	"os/exec"
	"strings"
	"testing"
)

// collect describes a run with its own types: it imports neither the host
// and deployment types (infra, provision) nor the orchestrator, so the
// result's schema changes only when collect changes it.
func TestCollectImportsNoOrchestrator(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	deps := strings.Fields(string(out))
	if len(deps) < 5 {
		t.Fatalf("go list -deps listed %d packages", len(deps))
	}
	for _, d := range deps {
		p, ok := strings.CutPrefix(d, "github.com/ybbench/ybbench/")
		if !ok {
			continue
		}
		if p == "infra" || strings.HasPrefix(p, "infra/") || p == "provision" || strings.HasPrefix(p, "provision/") || p == "internal/pipeline" {
			t.Errorf("collect depends on %s", d)
		}
	}
}
