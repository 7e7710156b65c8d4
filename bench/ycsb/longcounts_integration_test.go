//go:build integration

package ycsb

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ybbench/ybbench/internal/exitcode"
	"github.com/ybbench/ybbench/internal/testenv"
)

// TestIntegrationCountsAgainstYCSBCore gives YCSB core 0.17.0's Client
// (BasicDB) and ours the same counts past int's range: recordcount and
// insertstart are longs in both, and both run five reads; insertcount's
// default (recordcount − insertstart) past an int stops YCSB with a
// NumberFormatException and is refused by ours (exit 2) naming it.
func TestIntegrationCountsAgainstYCSBCore(t *testing.T) {
	refs := testenv.RefsFor(t)
	wl := filepath.Join(t.TempDir(), "workload")
	if err := os.WriteFile(wl, []byte("workload=site.ycsb.workloads.CoreWorkload\noperationcount=5\nreadproportion=1\nupdateproportion=0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		args []string
		runs bool
	}{
		{"recordcount past an int", []string{"-p", "recordcount=3000000000", "-p", "insertcount=10"}, true},
		{"insertstart past an int", []string{"-p", "recordcount=3000000010", "-p", "insertstart=3000000000", "-p", "insertcount=10"}, true},
		{"hotspotopnfraction out of range, unused", []string{"-p", "recordcount=10", "-p", "hotspotopnfraction=2"}, true},
		{"insertcount's default past an int", []string{"-p", "recordcount=3000000000"}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			out, err := exec.Command(refs.Java, append([]string{"-cp", refs.YCSBClassPath, "site.ycsb.Client", "-t", "-db", "site.ycsb.BasicDB",
				"-P", wl, "-p", "basicdb.verbose=false"}, c.args...)...).CombinedOutput()
			javaRuns := err == nil && strings.Contains(string(out), "[READ], Operations, 5\n")
			if javaRuns != c.runs {
				t.Fatalf("YCSB core ran: %v, want %v (%v): the oracle changed?\n%s", javaRuns, c.runs, err, out)
			}
			if !c.runs && !strings.Contains(string(out), "NumberFormatException") {
				t.Fatalf("YCSB core failed otherwise than on the int parse:\n%s", out)
			}
			code, ours, stderr := runMain(t, append([]string{"run", "null", "-P", wl}, c.args...)...)
			switch {
			case c.runs && (code != 0 || !strings.Contains(ours, "[READ], Operations, 5\n")):
				t.Errorf("ours: exit %d, YCSB core ran five reads\n%s\n%s", code, stderr, ours)
			case !c.runs && (code != exitcode.Config || !strings.Contains(stderr, "insertcount")):
				t.Errorf("ours: exit %d, want 2 naming insertcount\n%s", code, stderr)
			}
		})
	}
}
