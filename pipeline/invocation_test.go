package pipeline

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// A command line is recorded with its secrets redacted: URLs' tokens and
// userinfo, and the values of name=value pairs named as secrets, in any
// form the flags and variables take.
func TestRedactArgs(t *testing.T) {
	for in, want := range map[string]string{
		"--yb-tarball=https://op:pw@h.example/yb.tgz?sig=1": "--yb-tarball=https://REDACTED@h.example/yb.tgz?REDACTED",
		"https://h.example/yb.tgz?X-Amz-Signature=abc":      "https://h.example/yb.tgz?REDACTED",
		"--agent-properties=ysql.passwd=pw,threadcount=8":   "--agent-properties=ysql.passwd=REDACTED,threadcount=8",
		"db.password=pw,keyprefix=user":                     "db.password=REDACTED,keyprefix=user",
		"YBBENCH_AGENT_PROPERTIES=cassandra.password=pw":    "YBBENCH_AGENT_PROPERTIES=cassandra.password=REDACTED",
		"--api_key=abc": "--api_key=REDACTED",
		"--agent-properties=a.url=http://u:p@h/,b.url=http://u2:p2@h2/": "--agent-properties=a.url=http://REDACTED@h/,b.url=http://REDACTED@h2/",
		"--agent-properties=ysql.pwd=pw,threadcount=8":                  "--agent-properties=ysql.pwd=REDACTED,threadcount=8",
		"/opt/yb/yugabyte-2.20.1.0-b97-linux-x86_64.tar.gz":             "/opt/yb/yugabyte-2.20.1.0-b97-linux-x86_64.tar.gz",
		"--db-auth=off":                   "--db-auth=off",
		"--workloads=workloada,workloadb": "--workloads=workloada,workloadb",
	} {
		if got := redactArg(in); got != want {
			t.Errorf("redactArg(%q) = %q, want %q", in, got, want)
		}
	}
	env := settingsEnv([]string{"PATH=/bin", "YBBENCH_RECORDS=10", "YBBENCH_YB_TARBALL=https://u:p@h/x", "HOME=/root"})
	if want := []string{"YBBENCH_RECORDS=10", "YBBENCH_YB_TARBALL=https://REDACTED@h/x"}; !slices.Equal(env, want) {
		t.Errorf("settingsEnv = %q, want %q", env, want)
	}
}

// The flavor this machine's default chose is not an override: the user
// did not ask for it. It stays so when the run is reopened by a later
// command (collect, report, resume), whose resolved spec from run.json
// can no longer tell: the creating command's account, in
// invocations.json, is what setup.json and the result carry, with every
// command that worked on the run.
func TestDefaultFlavorIsChosenNotOverridden(t *testing.T) {
	r := newTestRun(t, func(s *Spec) { s.Records = new(int64(5)) }, Deps{Args: []string{"ybbench", "run", "--records", "5"}, Tool: "ybbench test"})
	if slices.Contains(r.spec.Overridden, "flavor") || len(r.spec.Chosen) != 1 || r.spec.Chosen[0].Setting != "flavor" {
		t.Fatalf("resolved: overridden %q, chosen %+v; want the flavor chosen, not overridden", r.spec.Overridden, r.spec.Chosen)
	}
	dir := r.Dir()
	r.Close()
	again, err := Open(dir, Deps{Args: []string{"ybbench", "collect", "--run", dir}, Tool: "ybbench test"})
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	s, err := again.setup()
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(s.Overridden, []string{"records"}) {
		t.Errorf("setup.json's overridden: %q, want [records]", s.Overridden)
	}
	if len(s.Chosen) != 1 || s.Chosen[0].Value != again.spec.Flavor || !strings.Contains(s.Chosen[0].By, "default") {
		t.Errorf("setup.json's chosen: %+v", s.Chosen)
	}
	// Only the command that made the run: later ones stay in
	// invocations.json, so that a result does not change when collected
	// again.
	if len(s.Invocations) != 1 || strings.Join(s.Invocations[0].Args, " ") != "ybbench run --records 5" {
		t.Errorf("setup.json's invocations: %+v", s.Invocations)
	}
	b, err := os.ReadFile(filepath.Join(dir, InvocationsFile))
	if err != nil || !strings.Contains(string(b), `"collect"`) {
		t.Errorf("%s: %v\n%s", InvocationsFile, err, b)
	}
}

// A flavor the user names is an override, and nothing is chosen for them.
func TestNamedFlavorIsOverridden(t *testing.T) {
	s := Defaults()
	s.Flavor = "postgres"
	res, err := s.Resolve()
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(res.Overridden, "flavor") || len(res.Chosen) != 0 {
		t.Errorf("overridden %q, chosen %+v; want flavor overridden", res.Overridden, res.Chosen)
	}
}
