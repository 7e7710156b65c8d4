package bench

import "time"

// Clock is the engine's monotonic clock: nanoseconds since the run's base.
// Intended starts, actual starts and ends are all on it, so latencies never
// see a wall-clock step.
type Clock struct{ base time.Time }

// NewClock starts a clock at the current instant.
func NewClock() *Clock { return &Clock{base: time.Now()} }

// Now returns nanoseconds since the base (monotonic).
func (c *Clock) Now() int64 { return int64(time.Since(c.base)) }

// Wall converts a clock reading to wall time.
func (c *Clock) Wall(ns int64) time.Time { return c.base.Add(time.Duration(ns)) }

// Base is the wall time of clock reading 0.
func (c *Clock) Base() time.Time { return c.base }
