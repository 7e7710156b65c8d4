package pipeline

import (
	"context"
	"strings"
	"testing"

	"github.com/ybbench/ybbench/internal/exitcode"
)

// A run whose up never recorded a cluster: the stages that need hosts
// refuse with a config error naming the way on, and never reach the runner.
func TestStagesWithoutClusterRefuse(t *testing.T) {
	s := Defaults()
	s.RunsDir = t.TempDir()
	res, err := s.Resolve()
	if err != nil {
		t.Fatal(err)
	}
	r, err := New(res, Deps{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for name, stage := range map[string]func() error{
		"preflight": func() error { return r.Preflight(ctx) },
		"install":   func() error { return r.Install(ctx) },
		"bench":     func() error { return r.Bench(ctx, ctx) },
	} {
		err := stage()
		if err == nil || exitcode.Of(err) != exitcode.Config || !strings.Contains(err.Error(), "has no hosts") {
			t.Errorf("%s: %v (exit %d), want a config error saying the run has no hosts", name, err, exitcode.Of(err))
		}
	}
}
