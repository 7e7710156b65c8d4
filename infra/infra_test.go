package infra

import (
	"strings"
	"testing"
)

// TestValidRunID: what the pipeline makes and the modules take; nothing
// a name, tag or shell comment could not hold.
func TestValidRunID(t *testing.T) {
	for id, want := range map[string]bool{
		"kv-ycql-261201-1830-0a1b2c3d": true,
		"R1.x_y":                       true,
		strings.Repeat("a", 64):        true,
		strings.Repeat("a", 65):        false,
		"":                             false,
		".hidden":                      false,
		"-flag":                        false,
		"a b":                          false,
		"a/b":                          false,
		"a\nb":                         false,
	} {
		if got := ValidRunID(id); got != want {
			t.Errorf("ValidRunID(%q) = %v, want %v", id, got, want)
		}
	}
}
