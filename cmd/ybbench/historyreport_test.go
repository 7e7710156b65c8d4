package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// trendHistory is a directory history of five runs of the ycsb-ysql
// fixture under builds b1…b5, made an hour apart; only run 3 has its
// report.html beside its result.
func trendHistory(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "collect", "testdata", "ycsb-ysql.result.json"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for i := 1; i <= 5; i++ {
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		id := fmt.Sprintf("ycsb-ysql-260101-000%d-0000000%d", i, i)
		m["run_id"], m["created"] = id, fmt.Sprintf("2026-01-01T0%d:00:00Z", i)
		m["build"] = map[string]any{"id": fmt.Sprintf("b%d", i)}
		raw, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Join(dir, id), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, id, "result.json"), raw, 0o644); err != nil {
			t.Fatal(err)
		}
		if i == 3 {
			if err := os.WriteFile(filepath.Join(dir, id, "report.html"), []byte("<!DOCTYPE html>"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	return dir
}

// `history report` writes the trend page of the series named where -o
// says (its directory made) and prints its path: a chart per figure of
// each series, the method's settings as given, run 3's report linked
// relative to the page and the others said to have none. No series, one
// matching nothing and a setting the method refuses are bad input.
func TestHistoryReport(t *testing.T) {
	hist := trendHistory(t)
	out := filepath.Join(t.TempDir(), "pages", "t.html")
	code, stdout := ybbenchIn(t, "history", "report", "--history-url", hist, "ycsb-ysql/workloada", "ycsb-ysql/workloadb/READ",
		"--min-magnitude", "0.25", "-o", out)
	if code != 0 || stdout != out+"\n" {
		t.Fatalf("exit %d, printed %q; want 0 and the page's path", code, stdout)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	page := string(b)
	// workloada: throughput, error_rate; READ: throughput, p50, p99, error_rate.
	if n := strings.Count(page, `<figure class="chart"`); n != 6 {
		t.Errorf("%d charts, want 6 (two of the workload, four of READ)", n)
	}
	if n := strings.Count(page, `<section class="series"`); n != 2 {
		t.Errorf("%d series, want 2", n)
	}
	if !strings.Contains(page, "<th>minimum magnitude</th><td>0.25</td>") {
		t.Error("the page does not print --min-magnitude as given")
	}
	rel, err := filepath.Rel(filepath.Dir(out), filepath.Join(hist, "ycsb-ysql-260101-0003-00000003", "report.html"))
	if err != nil {
		t.Fatal(err)
	}
	link := `href="` + filepath.ToSlash(rel) + `"`
	if n := strings.Count(page, link); n != 2 {
		t.Errorf("run 3's report linked %d times as %s, want once a series", n, link)
	}
	if n := strings.Count(page, "none recorded"); n != 8 {
		t.Errorf("%d runs said to have no report, want 8 (four a series)", n)
	}

	for _, c := range []struct {
		args []string
		want string
	}{
		{nil, "takes a series or more"},
		{[]string{"sysbench-ysql/*"}, "matches none of the store's"},
		{[]string{"--p-value", "2", "ycsb-ysql/workloada"}, "--p-value 2"},
	} {
		code, msg := ybbenchIn(t, append([]string{"history", "report", "--history-url", hist, "-o", filepath.Join(t.TempDir(), "x.html")}, c.args...)...)
		if code != 2 || !strings.Contains(msg, c.want) {
			t.Errorf("history report %v: exit %d, %q; want 2 saying %q", c.args, code, msg, c.want)
		}
	}
}
