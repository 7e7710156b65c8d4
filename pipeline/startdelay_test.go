package pipeline

import (
	"testing"
	"time"
)

// A phase on several clients is started start_delay ahead, so that they
// start together; a phase on one client starts at once, unless
// start_delay was given (by a layer, or as another value than the
// default), when it waits as told.
func TestStartDelay(t *testing.T) {
	def := &Run{spec: mustResolve(t, Defaults())}
	given := Defaults()
	given.StartDelay = 5 * time.Second
	set := Defaults()
	set.setFrom("start_delay", "--start-delay") // the default's value, given as a flag
	for _, c := range []struct {
		name    string
		r       *Run
		clients int
		want    time.Duration
	}{
		{"default, 2 clients", def, 2, 3 * time.Second},
		{"default, 1 client", def, 1, 0},
		{"5s, 1 client", &Run{spec: mustResolve(t, given)}, 1, 5 * time.Second},
		{"3s given, 1 client", &Run{spec: mustResolve(t, set)}, 1, 3 * time.Second},
	} {
		if got := c.r.startDelay(c.clients); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}
