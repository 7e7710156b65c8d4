package main

import (
	"errors"
	"io"
	"os"
	"syscall"
	"testing"

	"github.com/ybbench/ybbench/internal/exitcode"
)

// A command stopped by a signal exits as a shell reports that signal (128
// + its number), not with the code of the stage it interrupted; an
// incomplete teardown still exits 6.
func TestStoppedBySignalExitCodes(t *testing.T) {
	provisioning := exitcode.Errorf(exitcode.Provision, "preflight: context canceled")
	teardown := errors.Join(exitcode.Errorf(exitcode.Teardown, "teardown incomplete"), provisioning)
	for _, c := range []struct {
		name string
		sig  os.Signal
		err  error
		want int
	}{
		{"SIGINT in the preflight", os.Interrupt, provisioning, 128 + int(syscall.SIGINT)},
		{"SIGTERM in the preflight", syscall.SIGTERM, provisioning, 128 + int(syscall.SIGTERM)},
		{"SIGINT after everything succeeded", os.Interrupt, nil, 130},
		{"SIGTERM, teardown incomplete", syscall.SIGTERM, teardown, 6},
		{"no signal", nil, provisioning, 4},
		{"no signal, no error", nil, nil, 0},
	} {
		if got := exitcode.Of(stoppedBy(c.sig, c.err)); got != c.want {
			t.Errorf("%s: exit %d, want %d", c.name, got, c.want)
		}
	}
}

// A real SIGINT to this process is caught (the test goes on), cancels the
// soft stop, and turns the interrupted stage's error into exit 130.
func TestSignalsRecordTheFirstSignal(t *testing.T) {
	ss := signals(io.Discard)
	if err := syscall.Kill(os.Getpid(), syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	<-ss.stop.Done()
	if ss.hard.Err() != nil {
		t.Error("the first signal cancelled the hard context too")
	}
	if got := exitcode.Of(ss.exit(exitcode.Errorf(exitcode.Provision, "preflight: %w", ss.stop.Err()))); got != 130 {
		t.Errorf("exit %d, want 130", got)
	}
}
