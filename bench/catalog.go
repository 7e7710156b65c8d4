// Package bench is the load agent's engine: worker goroutines, bounds
// (operation count, duration, signals), pacing, warm-up, and measurement.
//
// A Workload says what one operation is; the engine owns the clock, the
// workers, the pacing and the bounds. Workers measure into a per-worker
// Recorder they are handed; the engine drains every recorder on each tick
// (default 1 s) into HDR histograms (record/hist) and hands the interval to
// sinks: the tick records (record), the status lines, the summary.
package bench

import "fmt"

// Op indexes a workload's measurement names (READ, UPDATE, …).
type Op uint8

// Status indexes a workload's result statuses (OK, ERROR, NOT_FOUND, …).
// Status 0 is always the plain success.
type Status uint8

// StatusOK is the plain success status of every catalog.
const StatusOK Status = 0

// StatusDef names a status and says whether it counts as a success.
type StatusDef struct {
	Name string
	OK   bool
}

// Catalog lists the measurement names and statuses a workload records.
type Catalog struct {
	// Ops are the measurement names, indexed by Op.
	Ops []string
	// Statuses are the result statuses, indexed by Status; Statuses[0] must be a success.
	Statuses []StatusDef
	// Cleanup is the Op under which the engine times each worker's cleanup
	// (YCSB's CLEANUP), or -1 for none.
	Cleanup int
}

// Validate checks the catalog's shape.
func (c *Catalog) Validate() error {
	switch {
	case len(c.Ops) == 0 || len(c.Ops) > 255:
		return fmt.Errorf("catalog: %d measurement names (want 1..255)", len(c.Ops))
	case len(c.Statuses) == 0 || len(c.Statuses) > 255:
		return fmt.Errorf("catalog: %d statuses (want 1..255)", len(c.Statuses))
	case !c.Statuses[0].OK:
		return fmt.Errorf("catalog: status 0 (%s) must be a success", c.Statuses[0].Name)
	case c.Cleanup >= len(c.Ops):
		return fmt.Errorf("catalog: cleanup op %d out of range", c.Cleanup)
	}
	return nil
}
