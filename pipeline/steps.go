package pipeline

import (
	"errors"
	"strings"

	"github.com/ybbench/ybbench/internal/exitcode"
)

// step runs fn as a ledger step: begun (with what it is about to do, to
// which hosts) before, ended after.
func (r *Run) step(name, about string, hosts []string, fn func() (map[string]string, error)) error {
	return r.stepWith(name, about, hosts, fn, stepOutcome)
}

// stepOutcome is how the progress says a step ended.
func stepOutcome(err error) string {
	if err != nil {
		return "failed: " + firstLine(err.Error())
	}
	return "done"
}

// firstLine is the first line of a (possibly joined) error's text.
func firstLine(s string) string {
	first, _, _ := strings.Cut(s, "\n")
	return first
}

// stepWith is step, the progress being told how it ended in outcome's
// words.
func (r *Run) stepWith(name, about string, hosts []string, fn func() (map[string]string, error), outcome func(error) string) (err error) {
	r.progress().Stage(name, about)
	defer func() { r.progress().End(name, outcome(err)) }()
	if err := r.ledger.Begin(name, about, hosts); err != nil {
		return exitcode.Wrap(exitcode.Tool, err)
	}
	details, err := fn()
	if lerr := r.ledger.End(name, err, details); lerr != nil {
		// The step's own error (and exit code) comes first.
		err = errors.Join(err, exitcode.Wrap(exitcode.Tool, lerr))
	}
	return err
}
