package exitcode

import (
	"errors"
	"fmt"
	"testing"
)

func TestClassSurvivesWrapping(t *testing.T) {
	base := Errorf(Config, "bad %s", "input")
	err := fmt.Errorf("context: %w", base)
	if Of(err) != Config {
		t.Fatalf("code %d", Of(err))
	}
	// The first classification wins.
	if Of(Wrap(Workload, err)) != Config {
		t.Fatal("reclassified")
	}
	if Of(errors.New("x")) != Tool || Of(nil) != OK {
		t.Fatal("defaults")
	}
}
