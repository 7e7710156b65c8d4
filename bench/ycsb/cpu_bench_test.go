package ycsb

import (
	"testing"
	"time"

	"github.com/ybbench/ybbench/internal/cpubench"
)

// cpuTime and reportCPU are cpubench's, named as this package's benchmarks call them.
func cpuTime() time.Duration { return cpubench.Now() }

func reportCPU(b *testing.B, from time.Duration) { cpubench.Report(b, from) }
