//go:build integration

package tfcheck

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ybbench/ybbench/internal/testenv"
)

// schemas loads the provider schemas that scripts/testenv/providers.sh
// derived from the cdktf packages (provider aws 6.25.0, google 6.50.0).
func schemas(t *testing.T) map[string]*Schema {
	t.Helper()
	out := map[string]*Schema{}
	for _, p := range []string{"aws", "google"} {
		s, err := LoadSchema(testenv.ProviderSchemaFor(t, p))
		if err != nil {
			t.Fatal(err)
		}
		out[p] = s
	}
	return out
}

// The shipped modules use only types, arguments, blocks and attributes
// that the pinned providers have, and set every required one; each
// module pins the provider release its schema was derived from.
func TestIntegrationModulesMatchProviderSchemas(t *testing.T) {
	all := schemas(t)
	for dir, provider := range map[string]string{"aws": "aws", "gcp": "google"} {
		t.Run(dir, func(t *testing.T) {
			m, err := ParseModule(filepath.Join(testenv.RepoRoot(), "terraform", dir))
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range CheckSchema(m, all) {
				t.Errorf("terraform/%s/%s", dir, f)
			}
			got := PinnedVersion(m, provider)
			if got != all[provider].Version {
				t.Errorf("terraform/%s pins %s %q; the schema checked is %s's", dir, provider, got, all[provider].Version)
			}
		})
	}
}

// Each fixture under testdata/schema breaks one rule of the check; the
// check reports exactly the findings in its want.txt.
func TestIntegrationSchemaFixturesFail(t *testing.T) {
	all := schemas(t)
	dirs, err := filepath.Glob(filepath.Join("testdata", "schema", "*"))
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no fixtures: %v", err)
	}
	for _, dir := range dirs {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			want, err := os.ReadFile(filepath.Join(dir, "want.txt"))
			if err != nil {
				t.Fatal(err)
			}
			m, err := ParseModule(dir)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, f := range CheckSchema(m, all) {
				got = append(got, f.String())
			}
			if strings.Join(got, "\n") != strings.TrimSpace(string(want)) {
				t.Errorf("findings:\n%s\nwant:\n%s", strings.Join(got, "\n"), want)
			}
		})
	}
}
