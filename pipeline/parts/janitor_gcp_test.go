package parts

import (
	"errors"
	"testing"

	"github.com/ybbench/ybbench/infra"
)

// TestGCPJanitorNeedsProject: the gcp entry makes a janitor, and without
// a project it says which setting is missing (before any API call).
func TestGCPJanitorNeedsProject(t *testing.T) {
	p, ok := Builtin().Provider("gcp")
	if !ok || p.Janitor == nil {
		t.Fatal("the gcp entry has no janitor")
	}
	_, err := p.Janitor(t.Context(), JanitorOptions{Region: "us-central1"})
	var se *infra.SettingError
	if !errors.As(err, &se) || se.Setting != infra.OptionProject {
		t.Fatalf("error %v, want a SettingError naming %q", err, infra.OptionProject)
	}
}
