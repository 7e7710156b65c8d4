package pipeline

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/ybbench/ybbench/infra/terraform"
)

// envPrefix begins every variable of ybbench's own.
const envPrefix = "YBBENCH_"

// otherVariables are the YBBENCH_* variables that are not settings: the
// ones the project documents for other purposes, which may well be in the
// environment of a run (a test tier exports some). A test keeps this list
// current with every YBBENCH_ name in the repository.
var otherVariables = map[string]string{
	terraform.EnvBinary:               "the terraform executable",
	"YBBENCH_SERVER":                  "the tag on a database server's environment (provision)",
	"YBBENCH_CACHE":                   "the test environment's download cache",
	"YBBENCH_TESTENV":                 "the test environment's endpoints file",
	"YBBENCH_TESTENV_DIR":             "the test environment's state directory",
	"YBBENCH_TESTENV_COMPONENTS":      "the test environment's components",
	"YBBENCH_TESTENV_REQUIRED":        "tests fail rather than skip without the test environment",
	"YBBENCH_CASSANDRA_HEAP":          "the test environment's Cassandra heap",
	"YBBENCH_CASSANDRA_JAVA":          "the test environment's Java for Cassandra",
	"YBBENCH_CASSANDRA_START_TIMEOUT": "the test environment's Cassandra start timeout",
	"YBBENCH_CASSANDRA_STOP_TIMEOUT":  "the test environment's Cassandra stop timeout",
	// The cloud hosts' disk script reads these on the host (tests point
	// it at a fake /dev/disk/by-id); they are not ybbench's.
	"YBBENCH_DISK_BYID":     "the cloud hosts' disk script: where the by-id links are",
	"YBBENCH_DISK_ROOT_DEV": "the cloud hosts' disk script: the root disk",
	"YBBENCH_DISK_MNT":      "the cloud hosts' disk script: where the disks are mounted",
	"YBBENCH_DISK_FSTAB":    "the cloud hosts' disk script: the fstab it writes",
	"YBBENCH_DISK_TRIES":    "the cloud hosts' disk script: how long it waits for the disks",
}

// knownVariables lists every YBBENCH_* variable ybbench knows, sorted.
func knownVariables() []string {
	var out []string
	for _, st := range settings {
		out = append(out, EnvName(st.Name))
	}
	for v := range otherVariables {
		out = append(out, v)
	}
	sort.Strings(out)
	return out
}

// unknownVariables refuses every YBBENCH_* variable of environ (NAME=value
// lines, as os.Environ gives them) that ybbench does not know: a misspelt
// setting would otherwise be ignored in silence. Each gets the closest
// known name as a hint when there is one near enough to be a typo.
func unknownVariables(environ []string) []error {
	known := knownVariables()
	var errs []error
	for _, kv := range environ {
		name, _, _ := strings.Cut(kv, "=")
		if !strings.HasPrefix(name, envPrefix) || slices.Contains(known, name) {
			continue
		}
		msg := fmt.Sprintf("%s: not a variable ybbench knows", name)
		if near := closest(name, known); near != "" {
			msg += fmt.Sprintf("; did you mean %s?", near)
		} else {
			msg += " (ybbench run --help names each setting's variable)"
		}
		errs = append(errs, fmt.Errorf("%s", msg))
	}
	return errs
}

// closest is the name of names nearest to s by edit distance, when it is
// near enough to be a typo of it (at most a third of s's letters after
// the prefix differ); "" otherwise.
func closest(s string, names []string) string {
	best, bestD := "", -1
	for _, n := range names {
		d := editDistance(s, n)
		if bestD < 0 || d < bestD {
			best, bestD = n, d
		}
	}
	if bestD < 0 || bestD > max(1, (len(s)-len(envPrefix))/3) {
		return ""
	}
	return best
}

// editDistance is the Levenshtein distance between a and b (insertions,
// deletions and substitutions of one byte each).
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
