package ybbench_test

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"
)

// The files users copy from examples/, each run through ybbench itself as
// the docs say to use it: the spec and the inventory planned (which makes
// nothing), the gate file judging a collected result, and the CI job's
// commands checked against ybbench's own commands and flags.
func TestExamples(t *testing.T) {
	bin := buildYbbench(t)
	t.Run("spec", func(t *testing.T) { testExampleSpec(t, bin) })
	t.Run("inventory", func(t *testing.T) { testExampleInventory(t, bin) })
	t.Run("gate", func(t *testing.T) { testExampleGate(t, bin) })
	t.Run("gate-history", func(t *testing.T) { testExampleGateHistory(t, bin) })
	t.Run("ci", func(t *testing.T) { testExampleCI(t, bin) })
}

// buildYbbench builds cmd/ybbench into a directory of the test's own.
func buildYbbench(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "ybbench")
	out, err := exec.Command("go", "build", "-o", bin, "./cmd/ybbench").CombinedOutput()
	if err != nil {
		t.Fatalf("go build ./cmd/ybbench: %v\n%s", err, out)
	}
	return bin
}

// ybbenchResult is one command's exit code and output.
type ybbenchResult struct {
	code           int
	stdout, stderr string
}

// runYbbench runs the binary in the module's root with an environment of
// the test's own: no YBBENCH_* or cloud settings of whoever runs the tests,
// and a HOME without keys or known hosts.
func runYbbench(t *testing.T, bin string, args ...string) ybbenchResult {
	t.Helper()
	home := t.TempDir()
	cmd := exec.Command(bin, args...)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "AWS_CONFIG_FILE=" + filepath.Join(home, "none"),
		"AWS_SHARED_CREDENTIALS_FILE=" + filepath.Join(home, "none"), "AWS_EC2_METADATA_DISABLED=true"}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	done := make(chan error, 1)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { done <- cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-time.After(2 * time.Minute):
		cmd.Process.Kill()
		t.Fatalf("ybbench %s: still running after 2 minutes", strings.Join(args, " "))
	}
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return ybbenchResult{code, stdout.String(), stderr.String()}
}

// readYAML decodes a YAML file into v.
func readYAML(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// exampleSpec is what the tests read of examples/spec.yaml.
type exampleSpec struct {
	Profile  string  `yaml:"profile"`
	Provider string  `yaml:"provider"`
	Region   string  `yaml:"region"`
	Zone     string  `yaml:"zone"`
	MaxCost  float64 `yaml:"max_cost"`
	Lifetime string  `yaml:"lifetime"`
	Repeat   int     `yaml:"repeat"`
}

// planJSON is what the tests read of `ybbench plan -o json`.
type planJSON struct {
	Schema  string `json:"schema"`
	Profile string `json:"profile"`
	Hosts   []struct {
		Name  string   `json:"name"`
		Roles []string `json:"roles"`
		Where string   `json:"where"`
	} `json:"hosts"`
	Cloud *struct {
		Provider        string  `json:"provider"`
		Region          string  `json:"region"`
		Zone            string  `json:"zone"`
		LifetimeSeconds float64 `json:"lifetime_seconds"`
	} `json:"cloud"`
	Cost *struct {
		MaxCostUSD    float64 `json:"max_cost_usd"`
		UpperBoundUSD float64 `json:"upper_bound_usd"`
	} `json:"cost"`
	Stages json.RawMessage `json:"stages"`
}

func decodePlan(t *testing.T, r ybbenchResult) planJSON {
	t.Helper()
	var p planJSON
	if err := json.Unmarshal([]byte(r.stdout), &p); err != nil {
		t.Fatalf("plan -o json: %v\n%s", err, r.stdout)
	}
	if p.Schema != "ybbench-plan/1" {
		t.Errorf("plan -o json: schema %q", p.Schema)
	}
	return p
}

// The spec plans without error, and the plan is of what the spec says:
// its profile, cloud, region, zone, lifetime, cost bound and repetitions.
// Planning makes no run directory.
func testExampleSpec(t *testing.T, bin string) {
	const file = "examples/spec.yaml"
	var spec exampleSpec
	readYAML(t, file, &spec)
	runs := filepath.Join(t.TempDir(), "runs")
	r := runYbbench(t, bin, "plan", "--spec", file, "--runs-dir", runs, "-o", "json")
	if r.code != 0 {
		t.Fatalf("ybbench plan --spec %s: exit %d\n%s", file, r.code, r.stderr)
	}
	p := decodePlan(t, r)
	if p.Profile != spec.Profile || spec.Profile == "" {
		t.Errorf("plan's profile %q, the spec's %q", p.Profile, spec.Profile)
	}
	if p.Cloud == nil || p.Cost == nil {
		t.Fatalf("the plan of a cloud spec has no cloud or cost section:\n%s", r.stdout)
	}
	if p.Cloud.Provider != spec.Provider || p.Cloud.Region != spec.Region || p.Cloud.Zone != spec.Zone {
		t.Errorf("plan's cloud %s %s %s, the spec's %s %s %s", p.Cloud.Provider, p.Cloud.Region, p.Cloud.Zone, spec.Provider, spec.Region, spec.Zone)
	}
	if life, err := time.ParseDuration(spec.Lifetime); err != nil || p.Cloud.LifetimeSeconds != life.Seconds() {
		t.Errorf("plan's lifetime %vs, the spec's %s (%v)", p.Cloud.LifetimeSeconds, spec.Lifetime, err)
	}
	if p.Cost.MaxCostUSD != spec.MaxCost || p.Cost.UpperBoundUSD <= 0 || p.Cost.UpperBoundUSD > spec.MaxCost {
		t.Errorf("plan's cost: bound %v USD, upper bound %v USD; the spec's max_cost %v", p.Cost.MaxCostUSD, p.Cost.UpperBoundUSD, spec.MaxCost)
	}
	if rep := "r" + strconv.Itoa(spec.Repeat) + "/" + strconv.Itoa(spec.Repeat); spec.Repeat > 1 && !bytes.Contains(p.Stages, []byte(rep)) {
		t.Errorf("the plan's stages have no repetition %s (repeat: %d)", rep, spec.Repeat)
	}
	if _, err := os.Stat(runs); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("plan made %s (%v): it must make nothing", runs, err)
	}
	// The settings the file leaves commented out are settings too.
	b, _ := os.ReadFile(file)
	help := runYbbench(t, bin, "run", "--help").stdout
	for _, m := range regexp.MustCompile(`(?m)^#\s*([a-z][a-z0-9_]*):\s`).FindAllStringSubmatch(string(b), -1) {
		if !strings.Contains(help, "--"+strings.ReplaceAll(m[1], "_", "-")+" ") {
			t.Errorf("%s: commented setting %s is no setting of ybbench run", file, m[1])
		}
	}
}

// exampleInventory is what the tests read of examples/inventory.yaml.
type exampleInventory struct {
	Defaults struct {
		SSH struct {
			Key string `yaml:"key"`
		} `yaml:"ssh"`
	} `yaml:"defaults"`
	Hosts []struct {
		Name    string   `yaml:"name"`
		Roles   []string `yaml:"roles"`
		Address string   `yaml:"address"`
	} `yaml:"hosts"`
}

// The inventory plans without error, every host of it with its roles and
// address, with host keys from the file alone (HOME has no known_hosts);
// without one host's key it is refused, naming the host. The login key,
// which must exist, is the one line changed: a key file of the test's own.
func testExampleInventory(t *testing.T, bin string) {
	const file = "examples/inventory.yaml"
	var inv exampleInventory
	readYAML(t, file, &inv)
	b, _ := os.ReadFile(file)
	if inv.Defaults.SSH.Key == "" || strings.Count(string(b), inv.Defaults.SSH.Key) != 1 {
		t.Fatalf("%s: want one login key under defaults, named once (%q)", file, inv.Defaults.SSH.Key)
	}
	dir := t.TempDir()
	key := filepath.Join(dir, "id_ed25519")
	if err := os.WriteFile(key, []byte("a private key\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	text := strings.Replace(string(b), inv.Defaults.SSH.Key, key, 1)
	path := filepath.Join(dir, "inventory.yaml")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	var spec exampleSpec
	readYAML(t, "examples/spec.yaml", &spec)
	runs := filepath.Join(dir, "runs")
	r := runYbbench(t, bin, "plan", spec.Profile, "--inventory", path, "--runs-dir", runs, "-o", "json")
	if r.code != 0 {
		t.Fatalf("ybbench plan %s --inventory %s: exit %d\n%s", spec.Profile, file, r.code, r.stderr)
	}
	p := decodePlan(t, r)
	if len(p.Hosts) != len(inv.Hosts) || len(inv.Hosts) < 2 {
		t.Fatalf("plan has %d hosts, the inventory %d", len(p.Hosts), len(inv.Hosts))
	}
	for i, h := range inv.Hosts {
		got := p.Hosts[i]
		if got.Name != h.Name || !slices.Equal(got.Roles, h.Roles) || !strings.Contains(got.Where, "@"+h.Address+":") {
			t.Errorf("plan's host %d: %s %v %q; the inventory's %s %v at %s", i, got.Name, got.Roles, got.Where, h.Name, h.Roles, h.Address)
		}
	}
	if _, err := os.Stat(runs); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("plan made %s (%v): it must make nothing", runs, err)
	}

	// Without the last host's key the inventory is refused before anything.
	lines := strings.Split(text, "\n")
	last := -1
	for i, l := range lines {
		if strings.Contains(l, "host_key:") {
			last = i
		}
	}
	if last < 0 {
		t.Fatalf("%s pins no host key", file)
	}
	if err := os.WriteFile(path, []byte(strings.Join(slices.Delete(lines, last, last+1), "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	r = runYbbench(t, bin, "plan", spec.Profile, "--inventory", path, "--runs-dir", runs)
	if name := inv.Hosts[len(inv.Hosts)-1].Name; r.code != 2 || !strings.Contains(r.stderr, name) {
		t.Errorf("an inventory without %s's host key: exit %d, want 2 and a message naming it:\n%s", name, r.code, r.stderr)
	}
}

// The gate file judges a collected result of its profile (the fixture the
// collector's tests keep) with ybbench gate: every gate of the file is
// evaluated (none lacks its baseline figure), verdict.json and junit.xml
// are written, and --junit copies it. A gate naming a workload the profile
// lacks is refused, naming the file and line.
func testExampleGate(t *testing.T, bin string) {
	const file = "examples/gate.yaml"
	var spec exampleSpec
	readYAML(t, "examples/spec.yaml", &spec)
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	var ruleLines []int
	for i, n := range doc.Content[0].Content {
		if n.Value == "gates" && i+1 < len(doc.Content[0].Content) {
			for _, g := range doc.Content[0].Content[i+1].Content {
				ruleLines = append(ruleLines, g.Line)
			}
		}
	}
	if len(ruleLines) < 2 {
		t.Fatalf("%s: %d gates", file, len(ruleLines))
	}

	result, err := os.ReadFile(filepath.Join("collect", "testdata", spec.Profile+".result.json"))
	if err != nil {
		t.Fatalf("no collected result of profile %s to gate: %v", spec.Profile, err)
	}
	run := filepath.Join(t.TempDir(), "run")
	if err := os.Mkdir(run, 0o755); err != nil {
		t.Fatal(err)
	}
	ledger := `{"schema": "ybbench-run/1", "id": "example", "spec": {"profile": "` + spec.Profile + `"}, "state": "torn-down", "steps": []}`
	for name, data := range map[string][]byte{"result.json": result, "run.json": []byte(ledger)} {
		if err := os.WriteFile(filepath.Join(run, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	junit := filepath.Join(t.TempDir(), "reports", "ybbench.xml")
	r := runYbbench(t, bin, "gate", "--run", run, "--gate", file, "--junit", junit)
	if r.code != 0 && r.code != 99 {
		t.Fatalf("ybbench gate --gate %s: exit %d, want 0 (passed) or 99 (failed)\n%s%s", file, r.code, r.stdout, r.stderr)
	}
	var v struct {
		Schema string `json:"schema"`
		Gates  []struct {
			Rule struct {
				Line int `json:"line"`
			} `json:"rule"`
			Outcome, Reason, Workload, Metric string
		} `json:"gates"`
	}
	vb, err := os.ReadFile(filepath.Join(run, "verdict.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(vb, &v); err != nil || v.Schema != "ybbench-verdict/1" {
		t.Fatalf("verdict.json: %v, schema %q", err, v.Schema)
	}
	judged := map[int]bool{}
	for _, g := range v.Gates {
		judged[g.Rule.Line] = true
		if g.Outcome != "pass" && g.Outcome != "fail" {
			t.Errorf("%s:%d: %s of %s: %s (%s): an example gate must be one the baseline can judge", file, g.Rule.Line, g.Metric, g.Workload, g.Outcome, g.Reason)
		}
	}
	for _, line := range ruleLines {
		if !judged[line] {
			t.Errorf("%s:%d: the gate judged nothing", file, line)
		}
	}
	var suite struct {
		XMLName xml.Name `xml:"testsuite"`
		Tests   int      `xml:"tests,attr"`
	}
	jb, err := os.ReadFile(junit)
	if err != nil {
		t.Fatalf("--junit %s: %v", junit, err)
	}
	if err := xml.Unmarshal(jb, &suite); err != nil || suite.Tests != len(v.Gates) {
		t.Errorf("junit.xml: %v; %d tests, want one per gate (%d)", err, suite.Tests, len(v.Gates))
	}
	if _, err := os.Stat(filepath.Join(run, "junit.xml")); err != nil {
		t.Errorf("junit.xml beside verdict.json: %v", err)
	}

	// The same file with a workload the profile lacks: refused at its line.
	bad := filepath.Join(t.TempDir(), "gate.yaml")
	lines := strings.Split(string(b), "\n")
	i := ruleLines[len(ruleLines)-1] - 1
	lines[i] = regexp.MustCompile(`workload: [^,}]+`).ReplaceAllString(lines[i], `workload: workloadz`)
	if err := os.WriteFile(bad, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	r = runYbbench(t, bin, "gate", "--run", run, "--gate", bad)
	if at := "gate.yaml:" + strconv.Itoa(i+1) + ":"; r.code != 2 || !strings.Contains(r.stderr, at) {
		t.Errorf("a gate of workload workloadz: exit %d, want 2 naming %s:\n%s", r.code, at, r.stderr)
	}
}

// exampleWorkflow is what the tests read of examples/ci.yml.
type exampleWorkflow struct {
	On   map[string]any `yaml:"on"`
	Jobs map[string]struct {
		Env   map[string]string `yaml:"env"`
		Steps []struct {
			Name string         `yaml:"name"`
			ID   string         `yaml:"id"`
			Uses string         `yaml:"uses"`
			Run  string         `yaml:"run"`
			With map[string]any `yaml:"with"`
		} `yaml:"steps"`
	} `yaml:"jobs"`
}

// The CI job is a GitHub Actions workflow whose commands are ybbench's own:
// every ybbench subcommand and flag it runs exists, every YBBENCH_* variable
// is a setting's, every make target is the Makefile's, every examples/ file
// it names is there; it runs a profile with a gate and --junit, and keeps
// junit.xml, verdict.json and the reports as artifacts.
func testExampleCI(t *testing.T, bin string) {
	const file = "examples/ci.yml"
	var wf exampleWorkflow
	readYAML(t, file, &wf)
	if len(wf.On) == 0 || len(wf.Jobs) == 0 {
		t.Fatalf("%s: no triggers (on:) or no jobs", file)
	}
	targets, err := makeTargets("Makefile")
	if err != nil {
		t.Fatal(err)
	}
	runHelp := runYbbench(t, bin, "run", "--help").stdout
	c := &cliChecker{bin: bin, t: t, help: map[string]string{}}
	var junitPath string
	gated, historyGate, trended := false, false, false
	for name, job := range wf.Jobs {
		for v := range job.Env {
			if strings.HasPrefix(v, "YBBENCH_") && !strings.Contains(runHelp, "("+v+")") {
				t.Errorf("%s: job %s: %s is no setting's variable", file, name, v)
			}
		}
		var artifacts, junitReport string
		for _, st := range job.Steps {
			for _, inv := range ybbenchInvocations(st.Run) {
				for _, p := range c.check(inv) {
					t.Errorf("%s: step %q: %s", file, st.Name, p)
				}
				if inv.sub == "run" && slices.Contains(inv.flags, "--gate") && slices.Contains(inv.flags, "--junit") {
					gated = true
					junitPath = inv.value("--junit")
					historyGate = strings.Contains(inv.value("--gate"), "history") && slices.Contains(inv.flags, "--build-id")
				}
				trended = trended || (inv.sub == "history" && len(inv.words) > 0 && inv.words[0] == "report")
			}
			for _, m := range makeMentions("`" + strings.ReplaceAll(st.Run, "\n", "`\n`") + "`") {
				if !targets[m.target] {
					t.Errorf("%s: step %q: make %s: no such target", file, st.Name, m.target)
				}
			}
			for _, f := range regexp.MustCompile(`examples/[A-Za-z0-9_./-]+`).FindAllString(st.Run, -1) {
				if _, err := os.Stat(f); err != nil {
					t.Errorf("%s: step %q names %s: %v", file, st.Name, f, err)
				}
			}
			if strings.HasPrefix(st.Uses, "actions/upload-artifact@") {
				artifacts += fmtAny(st.With["path"])
			}
			if strings.Contains(st.Uses, "junit") {
				junitReport += fmtAny(st.With["report_paths"])
			}
		}
		for _, f := range []string{"junit.xml", "verdict.json", "report.md", "report.html", "trend.html"} {
			if !strings.Contains(artifacts, "/"+f) {
				t.Errorf("%s: job %s keeps no %s as an artifact", file, name, f)
			}
		}
		if junitPath == "" || !strings.Contains(junitReport, junitPath) {
			t.Errorf("%s: job %s: the test report reads %q, ybbench writes --junit %q", file, name, junitReport, junitPath)
		}
	}
	if !gated || !historyGate || !trended {
		t.Errorf("%s: no step runs ybbench run with --gate and --junit (%v), a history gate and --build-id (%v), or ybbench history report (%v)", file, gated, historyGate, trended)
	}

	// The checker refuses what is not ybbench's.
	bad := ybbenchInvocations("bin/ybbench run --spec examples/spec.yaml --no-such-flag x \\\n  --gate g.yaml\nybbench frobnicate --run x\nybbench runs -q\nybbench history frobnicate\nybbench history list --window 3")
	var problems []string
	for _, inv := range bad {
		problems = append(problems, c.check(inv)...)
	}
	if len(bad) != 5 || len(problems) != 5 || !strings.Contains(strings.Join(problems, "\n"), "--no-such-flag") ||
		!strings.Contains(strings.Join(problems, "\n"), "history frobnicate") || !strings.Contains(strings.Join(problems, "\n"), "history list --window") ||
		!strings.Contains(strings.Join(problems, "\n"), "frobnicate") || !strings.Contains(strings.Join(problems, "\n"), "-q") {
		t.Errorf("the checker on bad commands (%d found) says:\n%s", len(bad), strings.Join(problems, "\n"))
	}
}

func fmtAny(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// invocation is one ybbench command line of a shell script: its
// subcommand, its flags in order, and its words.
type invocation struct {
	sub   string
	flags []string
	words []string
}

// value is the word after flag (or after its =), "" when it has none.
func (inv invocation) value(flag string) string {
	for i, w := range inv.words {
		if v, ok := strings.CutPrefix(w, flag+"="); ok {
			return v
		}
		if w == flag && i+1 < len(inv.words) {
			return inv.words[i+1]
		}
	}
	return ""
}

var (
	ybbenchCmdRE = regexp.MustCompile(`(?:^|[\s;&|(])(?:\S*/)?ybbench\s+([^;&|)]*)`)
	flagRE       = regexp.MustCompile(`(?:^|[\s+{])(--?[A-Za-z][A-Za-z0-9-]*)`)
)

// ybbenchInvocations finds the ybbench commands of a shell script (lines
// joined where they end in a backslash, comments left out).
func ybbenchInvocations(script string) []invocation {
	script = strings.ReplaceAll(script, "\\\n", " ")
	var out []invocation
	for _, line := range strings.Split(script, "\n") {
		if j := regexp.MustCompile(`(^|\s)#`).FindStringIndex(line); j != nil {
			line = line[:j[0]]
		}
		for _, m := range ybbenchCmdRE.FindAllStringSubmatch(line, -1) {
			words := shellWords(m[1])
			if len(words) == 0 {
				continue
			}
			inv := invocation{sub: words[0], words: words[1:]}
			for _, f := range flagRE.FindAllStringSubmatch(m[1], -1) {
				name, _, _ := strings.Cut(f[1], "=")
				inv.flags = append(inv.flags, name)
			}
			out = append(out, inv)
		}
	}
	return out
}

// cliChecker checks invocations against ybbench's own help.
type cliChecker struct {
	bin  string
	t    *testing.T
	help map[string]string // subcommand → its --help ("" key: ybbench --help)
}

func (c *cliChecker) helpOf(sub string) string {
	if h, ok := c.help[sub]; ok {
		return h
	}
	args := append(strings.Fields(sub), "--help")
	r := runYbbench(c.t, c.bin, args...)
	h := ""
	if r.code == 0 {
		h = r.stdout
	}
	c.help[sub] = h
	return h
}

// check returns what of inv ybbench does not have: the subcommand, or a flag.
func (c *cliChecker) check(inv invocation) []string {
	commands := c.helpOf("")
	if !regexp.MustCompile(`(?m)^\s+` + regexp.QuoteMeta(inv.sub) + `\s`).MatchString(commands) {
		return []string{"ybbench " + inv.sub + ": no such command"}
	}
	help := c.helpOf(inv.sub)
	// A command with subcommands (history import, …): the flags are the
	// subcommand's.
	if len(inv.words) > 0 && strings.Contains(help, "Available Commands:") {
		sub := inv.sub + " " + inv.words[0]
		if !regexp.MustCompile(`(?m)^\s+` + regexp.QuoteMeta(inv.words[0]) + `\s`).MatchString(help) {
			return []string{"ybbench " + sub + ": no such command"}
		}
		inv.sub, help = sub, c.helpOf(sub)
	}
	var problems []string
	for _, f := range inv.flags {
		long := strings.HasPrefix(f, "--")
		if long && !strings.Contains(help, "  "+f+" ") && !strings.Contains(help, ", "+f+" ") ||
			!long && !strings.Contains(help, "  "+f+", ") {
			problems = append(problems, "ybbench "+inv.sub+" "+f+": no such flag")
		}
	}
	return problems
}
