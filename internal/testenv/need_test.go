package testenv

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
)

// recorder is a testing.TB that records Fatal and Skip and, as they do,
// ends the goroutine that called them (not the test).
type recorder struct {
	testing.TB
	fatal, skip string
}

func (r *recorder) Helper()        {}
func (r *recorder) Fatal(a ...any) { r.fatal = fmt.Sprint(a...); runtime.Goexit() }
func (r *recorder) Skip(a ...any)  { r.skip = fmt.Sprint(a...); runtime.Goexit() }

// A missing requirement skips, unless the environment is required: then
// it fails, so that `make test` cannot pass with a tier that did not run.
func TestNeed(t *testing.T) {
	for _, c := range []struct {
		name            string
		required, ok    bool
		wantFatal, skip bool
	}{
		{"met", true, true, false, false},
		{"missing, not required: skip", false, false, false, true},
		{"missing, required: fail", true, false, true, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			v := ""
			if c.required {
				v = "1"
			}
			t.Setenv("YBBENCH_TESTENV_REQUIRED", v)
			r := &recorder{TB: t}
			done := make(chan struct{})
			go func() {
				defer close(done)
				Need(r, c.ok, "needs root")
			}()
			<-done
			if (r.fatal != "") != c.wantFatal || (r.skip != "") != c.skip {
				t.Errorf("fatal %q skip %q; want fatal %v skip %v", r.fatal, r.skip, c.wantFatal, c.skip)
			}
			for _, msg := range []string{r.fatal, r.skip} {
				if msg != "" && !strings.Contains(msg, "needs root") {
					t.Errorf("the message %q does not say what is missing", msg)
				}
			}
		})
	}
}
