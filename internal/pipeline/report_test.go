package pipeline

import (
	"os"
	"path/filepath"
	"testing"
)

// report.md comes from result.json and nothing else: a directory holding
// only a fixture result renders the report pinned for it in collect's
// golden files (no run.json, profile or deployment is read).
func TestRenderReportFromResultAlone(t *testing.T) {
	for _, profile := range []string{"ycsb-ysql", "kv-ycql"} {
		dir := t.TempDir()
		b, err := os.ReadFile(filepath.Join("..", "..", "collect", "testdata", profile+".result.json"))
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
		want, err := os.ReadFile(filepath.Join("..", "..", "collect", "testdata", profile+".report.md"))
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(want) {
			t.Errorf("%s: the report rendered from result.json alone differs from collect's golden:\n%s", profile, got)
		}
	}
}
