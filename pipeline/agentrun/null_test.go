package agentrun_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ybbench/ybbench/bench/ycsb"
	"github.com/ybbench/ybbench/pipeline/agentrun"
)

// The agent's null binding (the fake-parts tier's): every phase builds, is
// read back by ybload as a null-binding invocation, and neither the command
// line nor the properties file says anything of the database, its
// endpoints or its password, which the binding never uses.
func TestYCSBNullBinding(t *testing.T) {
	dir := t.TempDir()
	for _, ph := range []string{"prepare", "load", "run"} {
		in := ysqlInput(ph, 0, 1)
		in.Binding, in.Dir = "null", dir
		inv, err := agentrun.Build(in)
		if err != nil {
			t.Fatalf("%s: %v", ph, err)
		}
		for _, f := range inv.Files() {
			if err := os.WriteFile(f.Path, []byte(f.Content), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		parsed, err := ycsb.ParseArgs(inv.Args(), nil)
		if err != nil {
			t.Fatalf("%s: ybload refuses %q: %v", ph, inv.Args(), err)
		}
		if parsed.Binding != "null" || parsed.Load != (ph != "run") {
			t.Errorf("%s: ybload reads binding %q, load %v", ph, parsed.Binding, parsed.Load)
		}
		if got := parsed.Props.Get("ybload.prepare.only", "false"); got != map[bool]string{true: "true", false: "false"}[ph == "prepare"] {
			t.Errorf("%s: ybload.prepare.only=%s", ph, got)
		}
		props, err := os.ReadFile(filepath.Join(dir, "workloadd-"+ph+".properties"))
		if err != nil {
			t.Fatal(err)
		}
		all := strings.Join(inv.Args(), " ") + "\n" + string(props)
		for _, db := range []string{"10.0.0.2", "5433", "s3cret", "db.user", "ysql.", "db.url", "jdbc"} {
			if strings.Contains(all, db) {
				t.Errorf("%s: the null binding's invocation names %q:\n%s", ph, db, all)
			}
		}
	}
}
