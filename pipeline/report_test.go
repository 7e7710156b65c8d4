package pipeline

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ybbench/ybbench/collect/report"
)

// report.md comes from result.json and nothing else: a directory holding
// only a fixture result renders the report pinned for it in collect's
// golden files (no run.json, profile or deployment is read).
func TestRenderReportFromResultAlone(t *testing.T) {
	for _, profile := range []string{"ycsb-ysql", "kv-ycql"} {
		dir := t.TempDir()
		b, err := os.ReadFile(filepath.Join("..", "collect", "testdata", profile+".result.json"))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, ResultFile), b, 0o644); err != nil {
			t.Fatal(err)
		}
		path, err := RenderReport(dir)
		if err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		want, err := os.ReadFile(filepath.Join("..", "collect", "testdata", profile+".report.md"))
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(want) {
			t.Errorf("%s: the report rendered from result.json alone differs from collect's golden:\n%s", profile, got)
		}
		// report.html comes beside it, with its charts' notes saying what
		// a directory without records cannot show.
		html, err := os.ReadFile(filepath.Join(dir, report.HTMLFile))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(html), "no gates") || !strings.Contains(string(html), "no tick records") {
			t.Errorf("%s: report.html of a result alone:\n%.2000s", profile, html)
		}
	}
}

// A report.html that cannot be rendered (an unreadable verdict.json) does
// not cost report.md: it is written, and the error names the page.
func TestRenderReportKeepsMarkdown(t *testing.T) {
	dir := t.TempDir()
	b, err := os.ReadFile(filepath.Join("..", "collect", "testdata", "ycsb-ysql.result.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ResultFile), b, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "verdict.json"), []byte("{not json"), 0o644); err != nil {
		t.Fatal(err)
	}
	path, err := RenderReport(dir)
	if err == nil || !strings.Contains(err.Error(), "report.html") || !strings.Contains(err.Error(), "verdict.json") {
		t.Errorf("error %v, want one naming report.html and verdict.json", err)
	}
	if _, serr := os.Stat(path); path == "" || serr != nil {
		t.Errorf("report.md %q: %v", path, serr)
	}
	if _, serr := os.Stat(filepath.Join(dir, report.HTMLFile)); serr == nil {
		t.Error("a report.html was written")
	}
}

// A result.json of an earlier schema is not rendered: the error says so
// and how to collect it again in this version's.
func TestRenderReportOfAnEarlierSchema(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, ResultFile), []byte(`{"schema": "ybbench-result/2"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := RenderReport(dir)
	if err == nil || !strings.Contains(err.Error(), "ybbench-result/2") || !strings.Contains(err.Error(), "ybbench collect --run "+dir) {
		t.Errorf("got %v", err)
	}
	if _, serr := os.Stat(filepath.Join(dir, ReportFile)); serr == nil {
		t.Error("a report was written")
	}
}
