//go:build integration

package ycsb

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ybbench/ybbench/internal/testenv"
	"github.com/ybbench/ybbench/record/hist"
)

// oracleBlock is one measurement given to YCSB core and to us alike: its
// latencies and the statuses reported, in the order Java first sees them.
type oracleBlock struct {
	latencies []int64
	statuses  []struct {
		name  string
		count int64
	}
}

// TestIntegrationReportAgainstYCSBCore prints a measurement's block of the
// text report with YCSB core 0.17.0's own OneMeasurementHdrHistogram and
// TextMeasurementsExporter (testdata/oracle/Measurement.java, on Java 17)
// and with ours, for the same latencies and statuses: the blocks must be
// identical, AverageLatency's last digit (HdrHistogram 2.1.4's getMean)
// and the Return= lines' order included.
func TestIntegrationReportAgainstYCSBCore(t *testing.T) {
	refs := testenv.RefsFor(t)
	rng := rand.New(rand.NewPCG(7, 16))
	var blocks []oracleBlock
	// Statuses together, including each pair that shares a hash bucket in
	// Java's map, reported OK first.
	sets := [][]string{{"OK", "NOT_FOUND", "ERROR"}, {"ERROR"}, {"OK"}, {"OK", "NOT_IMPLEMENTED", "BAD_REQUEST", "FORBIDDEN"},
		{"UNEXPECTED_STATE", "SERVICE_UNAVAILABLE", "BATCHED_OK", "NOT_FOUND"}, {"OK", "ERROR", "NOT_FOUND", "UNEXPECTED_STATE"}}
	for i := range 40 {
		var b oracleBlock
		n := 1 + rng.IntN(400)
		for range n {
			// Latencies over five decades, as a run's are: HDR buckets of
			// every width, so that the mean's products are not all exact.
			b.latencies = append(b.latencies, int64(1+rng.ExpFloat64()*float64([]int{50, 900, 25000, 400000}[i%4])))
		}
		for _, s := range sets[i%len(sets)] {
			b.statuses = append(b.statuses, struct {
				name  string
				count int64
			}{s, 1 + rng.Int64N(1000)})
		}
		blocks = append(blocks, b)
	}

	var in strings.Builder
	for i, b := range blocks {
		if i > 0 {
			in.WriteString("--\n")
		}
		var words []string
		for _, s := range b.statuses {
			words = append(words, fmt.Sprintf("%s=%d", s.name, s.count))
		}
		in.WriteString(strings.Join(words, " ") + "\n")
		for _, v := range b.latencies {
			in.WriteString(strconv.FormatInt(v, 10) + "\n")
		}
	}
	cmd := exec.Command(refs.Java, "-cp", refs.YCSBClassPath, "testdata/oracle/Measurement.java")
	cmd.Stdin = strings.NewReader(in.String())
	out, err := cmd.Output()
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			t.Fatalf("YCSB core: %v\n%s", err, ee.Stderr)
		}
		t.Fatal(err)
	}
	java := strings.Split(strings.TrimSuffix(string(out), "--\n"), "--\n")
	if len(java) != len(blocks) {
		t.Fatalf("YCSB core printed %d blocks for %d", len(java), len(blocks))
	}
	index := map[string]int{}
	for i, d := range statusDefs {
		index[d.Name] = i
	}
	differ := 0
	for i, b := range blocks {
		h := hist.New()
		for _, v := range b.latencies {
			h.Record(v)
		}
		st := make([]int64, len(statusDefs))
		for _, s := range b.statuses {
			st[index[s.name]] = s.count
		}
		var ours strings.Builder
		line := func(metric, m, v string) { fmt.Fprintf(&ours, "[%s], %s, %s\n", metric, m, v) }
		hdrBlock(line, "READ", &measurement{name: "READ", h: h, statuses: st}, []float64{95, 99})
		if ours.String() != java[i] {
			differ++
			if differ <= 3 {
				t.Errorf("block %d (%d latencies):\nYCSB core:\n%sours:\n%s", i, len(b.latencies), java[i], ours.String())
			}
		}
	}
	if differ > 0 {
		t.Errorf("%d of %d blocks differ from YCSB core's", differ, len(blocks))
	}
	// The test must be able to see the difference it guards: in some of
	// these blocks hdrhistogram-go's own mean prints otherwise.
	printedOtherwise := 0
	for _, b := range blocks {
		h := hist.New()
		for _, v := range b.latencies {
			h.Record(v)
		}
		if JavaDouble(h.Mean()) != JavaDouble(h.JavaMean()) {
			printedOtherwise++
		}
	}
	if printedOtherwise == 0 {
		t.Error("no block's mean prints differently by hdrhistogram-go's Mean: the blocks do not exercise getMean's rounding")
	}
	t.Logf("%d blocks identical to YCSB core's; in %d of them hdrhistogram-go's own mean prints otherwise", len(blocks), printedOtherwise)
}

// TestIntegrationLoadCountAgainstYCSBCore loads with YCSB core 0.17.0's
// Client and BasicDB (basicdb.verbose prints every insert with its key) and
// with ours, for the same properties: the same number of inserts, and
// Java's keys are the ones ours inserts (insertstart on, hashed). Without
// insertcount YCSB loads recordcount records even when insertstart > 0.
func TestIntegrationLoadCountAgainstYCSBCore(t *testing.T) {
	refs := testenv.RefsFor(t)
	for _, c := range []struct {
		name  string
		props string
		start int64
		want  int64 // what YCSB printed when this test was written
	}{
		{"recordcount only", "recordcount=6\n", 0, 6},
		{"insertstart without insertcount", "recordcount=6\ninsertstart=3\n", 3, 6},
		{"insertstart and insertcount", "recordcount=10\ninsertstart=2\ninsertcount=5\n", 2, 5},
	} {
		t.Run(c.name, func(t *testing.T) {
			wl := filepath.Join(t.TempDir(), "workload")
			text := "workload=site.ycsb.workloads.CoreWorkload\noperationcount=10\nreadproportion=1\nupdateproportion=0\n" + c.props
			if err := os.WriteFile(wl, []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(refs.Java, "-cp", refs.YCSBClassPath, "site.ycsb.Client", "-load", "-db", "site.ycsb.BasicDB",
				"-P", wl, "-p", "basicdb.verbose=true", "-threads", "1")
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("YCSB core: %v\n%s", err, out)
			}
			var javaKeys []string
			javaOps := int64(-1)
			for _, l := range strings.Split(string(out), "\n") {
				if f := strings.Fields(l); len(f) > 2 && f[0] == "INSERT" && f[1] == "usertable" {
					javaKeys = append(javaKeys, f[2])
				}
				if v, ok := strings.CutPrefix(l, "[INSERT], Operations, "); ok {
					javaOps, _ = strconv.ParseInt(strings.TrimSpace(v), 10, 64)
				}
			}
			if javaOps != c.want || int64(len(javaKeys)) != javaOps {
				t.Fatalf("YCSB core loaded %d (printed %d keys), want %d: the oracle changed?\n%s", javaOps, len(javaKeys), c.want, out)
			}
			code, ours, stderr := runMain(t, "load", "null", "-P", wl, "-threads", "1")
			if code != 0 {
				t.Fatalf("ours: exit %d\n%s", code, stderr)
			}
			if !strings.Contains(ours, fmt.Sprintf("[INSERT], Operations, %d\n", javaOps)) {
				t.Errorf("ours did not load %d records as YCSB core did:\n%s", javaOps, ours)
			}
			want := map[string]bool{}
			for k := c.start; k < c.start+javaOps; k++ {
				want[string(KeyName(nil, "user", k, 1, false))] = true
			}
			for _, k := range javaKeys {
				if !want[k] {
					t.Errorf("YCSB core inserted %s, not one of keys %d…%d as ours names them", k, c.start, c.start+javaOps-1)
				}
			}
		})
	}
}

// TestIntegrationPrecedenceAgainstYCSBCore gives YCSB core 0.17.0's Client
// (with BasicDB, whose verbose init prints its properties once per thread
// and whose operations print their names) and our ParseArgs the same
// command lines: the thread count and the phase they run are the same —
// the last option setting a property wins, -p dotransactions included.
func TestIntegrationPrecedenceAgainstYCSBCore(t *testing.T) {
	refs := testenv.RefsFor(t)
	wl := filepath.Join(t.TempDir(), "workload")
	if err := os.WriteFile(wl, []byte("workload=site.ycsb.workloads.CoreWorkload\nrecordcount=6\noperationcount=10\nreadproportion=1\nupdateproportion=0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		command string
		args    []string
	}{
		{"run", []string{"-threads", "2", "-p", "threadcount=3"}},
		{"run", []string{"-p", "threadcount=3", "-threads", "2"}},
		{"run", []string{"-p", "dotransactions=false"}},
		{"load", []string{"-t"}},
		{"run", []string{"-load", "-p", "dotransactions=true", "-threads", "3"}},
		{"load", []string{"-p", "dotransactions=TRUE"}},
	} {
		t.Run(c.command+" "+strings.Join(c.args, " "), func(t *testing.T) {
			phase := map[string]string{"run": "-t", "load": "-load"}[c.command]
			line := append([]string{"-cp", refs.YCSBClassPath, "site.ycsb.Client", phase, "-db", "site.ycsb.BasicDB", "-P", wl,
				"-p", "basicdb.verbose=true"}, c.args...)
			out, err := exec.Command(refs.Java, line...).CombinedOutput()
			if err != nil {
				t.Fatalf("YCSB core: %v\n%s", err, out)
			}
			javaThreads, javaInserts, javaReads := 0, 0, 0
			for _, l := range strings.Split(string(out), "\n") {
				switch {
				case strings.Contains(l, "properties *****"):
					javaThreads++
				case strings.HasPrefix(l, "INSERT "):
					javaInserts++
				case strings.HasPrefix(l, "READ "):
					javaReads++
				}
			}
			if javaThreads == 0 || (javaInserts == 0) == (javaReads == 0) {
				t.Fatalf("YCSB core: %d threads, %d inserts, %d reads: the oracle changed?\n%s", javaThreads, javaInserts, javaReads, out)
			}
			inv, err := ParseArgs(append([]string{c.command, "null", "-P", wl}, c.args...), nil)
			if err != nil {
				t.Fatal(err)
			}
			threads, _ := strconv.Atoi(inv.Props.Get("threadcount", "1"))
			if threads != javaThreads {
				t.Errorf("threadcount %d, YCSB core ran %d threads", threads, javaThreads)
			}
			if inv.Load != (javaInserts > 0) {
				t.Errorf("load phase %v, YCSB core made %d inserts and %d reads", inv.Load, javaInserts, javaReads)
			}
		})
	}
}

// TestIntegrationJavaIntOfDouble checks JavaIntOfDouble against Java's own
// narrowing (a cast and Double.intValue(), which YCSB applies to an
// exponential draw and to expectednewkeys) on Java 17, at and past int's
// ends, on NaN and the infinities.
func TestIntegrationJavaIntOfDouble(t *testing.T) {
	refs := testenv.RefsFor(t)
	xs := []float64{0, -0.9, 3.99, -3.99, 2147483646.7, 2147483647, 2147483647.5, 2147483648, 1e10, 1e300,
		-2147483648, -2147483648.9, -2147483649, -1e300, math.Inf(1), math.Inf(-1), math.NaN(), math.MaxFloat64, 5e-324}
	var in strings.Builder
	for _, x := range xs {
		s := strconv.FormatFloat(x, 'g', -1, 64)
		switch {
		case math.IsNaN(x):
			s = "NaN"
		case math.IsInf(x, 1):
			s = "Infinity"
		case math.IsInf(x, -1):
			s = "-Infinity"
		}
		in.WriteString(s + "\n")
	}
	cmd := exec.Command(refs.Java, "testdata/oracle/Narrow.java")
	cmd.Stdin = strings.NewReader(in.String())
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("java: %v", err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != len(xs) {
		t.Fatalf("java printed %d lines for %d values:\n%s", len(lines), len(xs), out)
	}
	for i, x := range xs {
		got := JavaIntOfDouble(x)
		if want := fmt.Sprintf("%d %d", got, got); lines[i] != want {
			t.Errorf("(int) %v: Java %q, ours %d", x, lines[i], got)
		}
	}
}

// TestIntegrationRawNoticesAgainstYCSBCore runs measurementtype=raw with
// YCSB core 0.17.0 (BasicDB) and ours (null binding), datapoints to stdout
// and to a file: the lines on stdout that are not datapoints or report
// lines — each raw measurement's "Raw data measurement: …" notice and its
// header — are the same, counted as a multiset (Java prints the headers
// at the end, ours as the datapoints stream).
func TestIntegrationRawNoticesAgainstYCSBCore(t *testing.T) {
	refs := testenv.RefsFor(t)
	dir := t.TempDir()
	wl := filepath.Join(dir, "workload")
	if err := os.WriteFile(wl, []byte("workload=site.ycsb.workloads.CoreWorkload\nrecordcount=6\noperationcount=20\nreadproportion=1\nupdateproportion=0\nmeasurementtype=raw\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	datapoint := regexp.MustCompile(`^[A-Za-z-]+,\d+,\d+$`)
	chatter := func(out string) []string {
		var keep []string
		for _, l := range strings.Split(out, "\n") {
			if l == "" || strings.HasPrefix(l, "[") || datapoint.MatchString(l) {
				continue
			}
			keep = append(keep, l)
		}
		slices.Sort(keep)
		return keep
	}
	for _, file := range []string{"", filepath.Join(dir, "raw.txt")} {
		// One thread: with several, Java may build a measurement twice when
		// two threads first measure the same name together, and print its
		// notice twice (Measurements's get-then-putIfAbsent).
		extra := []string{"-threads", "1"}
		if file != "" {
			extra = append(extra, "-p", "measurement.raw.output_file="+file)
		}
		cmd := exec.Command(refs.Java, append([]string{"-cp", refs.YCSBClassPath, "site.ycsb.Client", "-t", "-db", "site.ycsb.BasicDB",
			"-P", wl, "-p", "basicdb.verbose=false"}, extra...)...)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("YCSB core: %v", err)
		}
		java := chatter(string(out))
		if !slices.Contains(java, "Raw data measurement: will output to stdout.") && !slices.ContainsFunc(java, func(l string) bool { return strings.HasPrefix(l, "Raw data measurement: will output to result file") }) {
			t.Fatalf("YCSB core printed no notice: the oracle changed?\n%s", out)
		}
		code, ours, stderr := runMain(t, append([]string{"run", "null", "-P", wl}, extra...)...)
		if code != 0 {
			t.Fatalf("ours: exit %d\n%s", code, stderr)
		}
		if got := chatter(ours); !slices.Equal(got, java) {
			t.Errorf("file %q: stdout chatter\nYCSB core: %q\nours:      %q", file, java, got)
		}
	}
}
