// Package exitcode classifies errors into the exit codes ybbench and ybload
// promise (README.md, "Exit codes"). An error is classified once, where it is
// first understood, and the class survives wrapping with %w.
package exitcode

import (
	"errors"
	"fmt"
)

// The exit codes.
const (
	OK        = 0
	Tool      = 1  // our own failure
	Config    = 2  // bad configuration or input
	Infra     = 3  // infrastructure
	Provision = 4  // provisioning
	Workload  = 5  // agent, workload or database
	Teardown  = 6  // teardown incomplete: resources may remain
	Gate      = 99 // a gate failed: results are fine, the numbers are not
	// A run stopped by a signal exits as a shell reports a process that
	// signal ended (128 + its number), once its teardown is complete.
	Interrupted = 130 // SIGINT
	Terminated  = 143 // SIGTERM
)

type classified struct {
	code int
	err  error
}

func (c *classified) Error() string { return c.err.Error() }
func (c *classified) Unwrap() error { return c.err }

// Wrap marks err with an exit code, unless it already carries one.
func Wrap(code int, err error) error {
	if err == nil {
		return nil
	}
	var c *classified
	if errors.As(err, &c) {
		return err
	}
	return &classified{code: code, err: err}
}

// Errorf formats an error and marks it with an exit code.
func Errorf(code int, format string, args ...any) error {
	return &classified{code: code, err: fmt.Errorf(format, args...)}
}

// Of returns the exit code of err: 0 for nil, its class if it has one, else Tool.
func Of(err error) int {
	if err == nil {
		return OK
	}
	var c *classified
	if errors.As(err, &c) {
		return c.code
	}
	return Tool
}
