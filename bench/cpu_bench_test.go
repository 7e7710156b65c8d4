package bench

import (
	"syscall"
	"testing"
	"time"
)

// cpuTime is the process's user and system CPU so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// reportCPU adds the CPU the process spent per operation since from: on a
// shared machine, less sensitive to other load than the elapsed time.
func reportCPU(b *testing.B, from time.Duration) {
	b.ReportMetric(float64(cpuTime()-from)/float64(b.N), "cpu-ns/op")
}
