//go:build integration

package sysbench

import (
	"os/exec"
	"regexp"
	"strings"
	"testing"
)

// sysbenchOption is an option line of a help text: the option's name (with
// '-' for '_') and its default, "" when the line shows none.
var (
	realOption = regexp.MustCompile(`^\s+--([a-z0-9_-]+)(?:\[=on\|off\]|=\S+)?\s+(.*?)(?: \[([^\]]*)\])?$`)
	ourOption  = regexp.MustCompile(`^\s+--([a-z0-9-]+)=\s+.*?(?: \[([^\]]*)\])?$`)
)

// optionDefaults reads the options and defaults of a help text.
func optionDefaults(text string, re *regexp.Regexp, def int) map[string]string {
	out := map[string]string{}
	for _, l := range strings.Split(text, "\n") {
		if m := re.FindStringSubmatch(l); m != nil {
			out[strings.ReplaceAll(m[1], "_", "-")] = m[def]
		}
	}
	return out
}

// notOurs are the options of sysbench 1.0.20's help that ybload does not
// take, each with why (the docs' deviations table says the same).
var notOurs = map[string]string{
	"help": "ybload's --help is a flag of its own", "mysql-host": "PostgreSQL only", "mysql-port": "PostgreSQL only",
	"mysql-socket": "PostgreSQL only", "mysql-user": "PostgreSQL only", "mysql-password": "PostgreSQL only",
	"mysql-db": "PostgreSQL only", "mysql-ssl": "PostgreSQL only", "mysql-ssl-cipher": "PostgreSQL only",
	"mysql-compression": "PostgreSQL only", "mysql-debug": "PostgreSQL only", "mysql-ignore-errors": "PostgreSQL only",
	"mysql-dry-run": "PostgreSQL only",
}

// otherDefaults are the options whose default ybload changes, with why.
var otherDefaults = map[string]string{
	"db-driver": "pgsql: the only driver ybload has (sysbench's default is mysql)",
}

// ybload sysbench --compat=1.0.20's options are real sysbench 1.0.20's:
// every option its general help and each oltp workload's help list is
// ybload's too, with the same default, but for the ones named with their
// reason. (ybload's help text itself is its own, kept as a golden file:
// no sysbench prints it.)
func TestIntegrationHelpOptionsAgainstSysbench1020(t *testing.T) {
	sb, err := exec.LookPath("sysbench")
	if err != nil {
		t.Skip("no sysbench on PATH (scripts/setup.sh installs Debian's)")
	}
	if out, err := exec.Command(sb, "--version").Output(); err != nil || !strings.HasPrefix(string(out), "sysbench 1.0.20") {
		t.Skipf("sysbench is not 1.0.20: %q %v", out, err)
	}
	ours := optionDefaults(Help(Mode1020), ourOption, 2)
	if len(ours) < 40 {
		t.Fatalf("read %d options of ybload's help", len(ours))
	}
	general, err := exec.Command(sb, "--help").CombinedOutput()
	if err != nil {
		t.Fatalf("sysbench --help: %v\n%s", err, general)
	}
	texts := map[string]string{"--help": string(general)}
	for _, w := range Workloads {
		out, err := exec.Command(sb, w, "help").CombinedOutput()
		if err != nil {
			t.Fatalf("sysbench %s help: %v\n%s", w, err, out)
		}
		texts[w+" help"] = string(out)
	}
	compared := 0
	for from, text := range texts {
		real := optionDefaults(text, realOption, 3)
		if len(real) == 0 {
			t.Fatalf("sysbench %s: no options read:\n%s", from, text)
		}
		for name, def := range real {
			if _, skip := notOurs[name]; skip {
				continue
			}
			got, ok := ours[name]
			switch {
			case !ok:
				t.Errorf("sysbench %s lists --%s; ybload's help does not", from, name)
			case got != def && otherDefaults[name] == "":
				t.Errorf("sysbench %s: --%s defaults to %q; ybload's to %q", from, name, def, got)
			default:
				compared++
			}
		}
	}
	t.Logf("%d options compared", compared)
	if compared < 40 {
		t.Errorf("only %d options compared", compared)
	}
}
