package pace

import (
	"context"
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// preciseTimer is a timerfd, opened on first use, that the Go runtime's
// poller watches like a socket: a goroutine reading it parks, and the
// poller's epoll wait returns when the kernel timer expires (within the
// timer slack, 50 µs), not at the next whole millisecond of its timeout.
// No thread is held while it waits. Where the timerfd cannot be had, err
// says why and the caller uses Go's timer.
type preciseTimer struct {
	f   *os.File
	fd  int
	err error
	buf [8]byte
	// ctx is the context whose end fires the timer at once (stop undoes
	// that): a run's pacers wait under one context, registered once.
	ctx  context.Context
	stop func() bool
}

// wait waits d or until ctx is done, and says whether the wait ended
// with ctx still live; waited is false when the timerfd could not be
// used and nothing was waited.
func (p *preciseTimer) wait(ctx context.Context, d time.Duration) (ok, waited bool) {
	if p.f == nil && p.err == nil {
		fd, err := unix.TimerfdCreate(unix.CLOCK_MONOTONIC, unix.TFD_NONBLOCK|unix.TFD_CLOEXEC)
		if err != nil {
			p.err = err
			return false, false
		}
		// A non-blocking descriptor makes a File the poller watches; the
		// File closes it when it is collected.
		p.f, p.fd = os.NewFile(uintptr(fd), "pace-timerfd"), fd
	}
	if p.err != nil {
		return false, false
	}
	if ctx != p.ctx {
		if p.stop != nil {
			p.stop()
		}
		p.ctx, p.stop = ctx, context.AfterFunc(ctx, func() { p.arm(1) })
	}
	if ctx.Err() != nil {
		return false, true
	}
	if p.err = p.arm(d); p.err != nil {
		return false, false
	}
	// A context that ended between the check and the arming has had its
	// AfterFunc's firing overwritten: fire again.
	if ctx.Err() != nil {
		p.arm(1)
	}
	// The read returns the expirations (8 bytes) once the timer fired.
	if _, p.err = p.f.Read(p.buf[:]); p.err != nil {
		return false, false
	}
	return ctx.Err() == nil, true
}

// arm sets the timer to expire once, d from now.
func (p *preciseTimer) arm(d time.Duration) error {
	spec := unix.ItimerSpec{Value: unix.NsecToTimespec(int64(d))}
	return unix.TimerfdSettime(p.fd, 0, &spec, nil)
}
