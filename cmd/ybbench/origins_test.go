package main

import (
	"context"
	"testing"

	"github.com/ybbench/ybbench/pipeline"
)

// The command line's resolve says who gave each setting, so that the
// report can say who overrode a parameter.
func TestResolveRecordsOrigins(t *testing.T) {
	on, d := true, "30s"
	o := &options{presets: map[string]*bool{"quick": &on}, set: map[string]*string{"duration": &d}}
	t.Setenv("YBBENCH_RUNS_DIR", t.TempDir())
	r, err := o.resolve(context.Background(), pipeline.Deps{}, pipeline.CheckOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for setting, want := range map[string]string{"records": "--quick", "duration": "--duration", "runs_dir": "YBBENCH_RUNS_DIR"} {
		if got := r.Origins[setting]; got != want {
			t.Errorf("origin of %s: %q, want %q", setting, got, want)
		}
	}
}
