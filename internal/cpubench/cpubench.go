// Package cpubench reports a Go benchmark's CPU per operation beside its
// elapsed time: on a shared machine it is less sensitive to other load.
package cpubench

import (
	"syscall"
	"testing"
	"time"
)

// Now is the process's user and system CPU so far.
func Now() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// Report adds the CPU the process spent per operation since from, as
// cpu-ns/op.
func Report(b *testing.B, from time.Duration) {
	b.ReportMetric(float64(Now()-from)/float64(b.N), "cpu-ns/op")
}
