package ycsb

import (
	"strings"
	"time"
)

// propReader reads typed properties and keeps every problem instead of
// stopping at the first, so that one run names all the mistakes of a
// command line (YCSB stops at the first, and a fix costs a run each).
// A value that does not parse reads as what Props returns with its error.
type propReader struct {
	p    *Props
	errs []error
}

func (r *propReader) add(err error) {
	if err != nil {
		r.errs = append(r.errs, err)
	}
}

// bad records a problem with key's value, naming where it was set.
func (r *propReader) bad(key, msg string) { r.errs = append(r.errs, r.p.bad(key, msg)) }

// int reads a Java int (YCSB's Integer.parseInt).
func (r *propReader) int(key string, def int64) int64 {
	v, err := r.p.Int(key, def)
	r.add(err)
	return v
}

// long reads a Java long (YCSB's Long.parseLong).
func (r *propReader) long(key string, def int64) int64 {
	v, err := r.p.Long(key, def)
	r.add(err)
	return v
}

// float reads a Java double.
func (r *propReader) float(key string, def float64) float64 {
	v, err := r.p.Float(key, def)
	r.add(err)
	return v
}

// strictBool reads one of ybload's own booleans (true or false only).
func (r *propReader) strictBool(key string, def bool) bool {
	v, err := r.p.StrictBool(key, def)
	r.add(err)
	return v
}

// duration reads one of ybload's own durations (500ms, 10s; not negative),
// def when unset or bad.
func (r *propReader) duration(key string, def time.Duration) time.Duration {
	if !r.p.Has(key) {
		return def
	}
	d, err := time.ParseDuration(strings.TrimSpace(r.p.Get(key, "")))
	if err != nil || d < 0 {
		r.bad(key, "want a duration such as 500ms or 10s")
		return def
	}
	return d
}
