//go:build !linux

package pace

import (
	"context"
	"time"
)

// preciseTimer waits nothing where the agent does not run in production
// (its hosts are Linux, precise_linux.go): Go's timer does.
type preciseTimer struct{}

func (preciseTimer) wait(context.Context, time.Duration) (ok, waited bool) { return false, false }
