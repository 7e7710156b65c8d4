package provision

import (
	"context"
	"errors"
	"fmt"
	"path"
	"strings"
	"text/template"

	"github.com/ybbench/ybbench/infra"
	"github.com/ybbench/ybbench/internal/exitcode"
	"github.com/ybbench/ybbench/internal/shellquote"
	"github.com/ybbench/ybbench/provision/scripts"
)

// OwnDirName is the directory a run makes under a host's base and under
// each of its data directories; everything the run writes on the host
// goes inside one of them.
const OwnDirName = "ybbench"

// OwnerMarker is the file in an own directory naming the run that made it
// (run=<id>, version=<ybbench version>), written before anything else.
const OwnerMarker = ".ybbench-owner"

// Remote exit codes of the own library (scripts/own.sh.tmpl).
const (
	ownRefused = 20 // the path may not hold a run's directory
	ownForeign = 21 // the directory is not this run's
)

// OwnDir is the run's own directory under parent (a base or a data dir).
func OwnDir(parent string) string { return path.Join(parent, OwnDirName) }

// Mark identifies the run that owns a directory.
type Mark struct {
	RunID   string
	Version string
}

// OwnFuncs are the template functions the "own" library needs; a flavor
// that includes {{template "own"}} in its scripts adds them.
var OwnFuncs = template.FuncMap{"systemPatterns": infra.SystemPathPatterns}

// OwnScript renders a script that defines the own library and runs body
// (with the library's functions own_claim and own_release in scope).
func OwnScript(body string) (string, error) {
	return RenderWith("own-script", scripts.Own+"set -euo pipefail\ncd /\n{{template \"own\"}}"+body, nil, OwnFuncs)
}

// ClaimScript is the script that claims OwnDir(p) for every parent p. It
// is a pure function (golden-tested).
func ClaimScript(m Mark, parents []string, serviceUser string) (string, error) {
	if err := checkMark(m); err != nil {
		return "", err
	}
	var b strings.Builder
	for _, p := range parents {
		fmt.Fprintf(&b, "own_claim %s %s %s %s\n", shellquote.Quote(p), shellquote.Quote(m.RunID), shellquote.Quote(m.Version), shellquote.Quote(serviceUser))
	}
	return OwnScript(b.String())
}

// ReleaseScript is the script that removes OwnDir(p) for every parent p
// that runID made. It is a pure function (golden-tested).
func ReleaseScript(runID string, parents []string) (string, error) {
	if err := checkMark(Mark{RunID: runID, Version: "-"}); err != nil {
		return "", err
	}
	var b strings.Builder
	for _, p := range parents {
		fmt.Fprintf(&b, "own_release %s %s\n", shellquote.Quote(p), shellquote.Quote(runID))
	}
	return OwnScript(b.String())
}

func checkMark(m Mark) error {
	if m.RunID == "" || strings.ContainsAny(m.RunID, "\n=") || strings.ContainsAny(m.Version, "\n") {
		return exitcode.Errorf(exitcode.Tool, "own directories: bad run id %q or version %q", m.RunID, m.Version)
	}
	return nil
}

// Claim makes (or takes back, when this run made it) OwnDir(p) on host h
// for every parent p, marked with m before anything goes in; with a
// serviceUser, the new directories are that user's. Each parent must
// resolve to itself and not be a system directory (exit 2 otherwise); a
// missing one is made (and reported by ClaimReporting); an own directory
// another run made, or one without a marker, stops it with exit 4. The
// parent directories that exist are never changed.
func Claim(ctx context.Context, r Runner, h infra.Host, m Mark, parents []string, serviceUser string) error {
	_, err := ClaimReporting(ctx, r, h, m, parents, serviceUser)
	return err
}

// ClaimReporting is Claim, and returns what it changed on the host outside
// the run's own directories (the missing parents it made), for the ledger.
func ClaimReporting(ctx context.Context, r Runner, h infra.Host, m Mark, parents []string, serviceUser string) ([]string, error) {
	script, err := ClaimScript(m, parents, serviceUser)
	if err != nil {
		return nil, err
	}
	res, err := r.Run(ctx, h, script, Step("own-claim"))
	if err != nil {
		return nil, err
	}
	return CreatedParents(res.Stdout), OwnError(h, res)
}

// CreatedParents are the host changes a script that used own_claim
// reported: a base or data dir it made because it was missing (left in
// place at teardown, since a parent is never removed).
func CreatedParents(stdout []byte) []string {
	var out []string
	for _, l := range strings.Split(string(stdout), "\n") {
		if p, ok := strings.CutPrefix(l, "YBOWN created-parent "); ok {
			out = append(out, "mkdir -p "+p+" (left in place)")
		}
	}
	return out
}

// Release removes OwnDir(p) on host h for every parent p, when its marker
// names runID (never the parent, never across a mount point); a missing one
// is fine. A directory that is not the run's (unmarked, another run's, a
// link) is left alone, with a line on the step's log: it was never this
// run's, so the teardown of this run is complete without it. A failure to
// remove the run's own directory is an error.
func Release(ctx context.Context, r Runner, h infra.Host, runID string, parents []string) error {
	script, err := ReleaseScript(runID, parents)
	if err != nil {
		return err
	}
	return runOwn(ctx, r, h, script, "own-release")
}

func runOwn(ctx context.Context, r Runner, h infra.Host, script, step string) error {
	res, err := r.Run(ctx, h, script, Step(step))
	if err != nil {
		return err
	}
	return OwnError(h, res)
}

// OwnError classifies a script's result that used the own library: a
// refused path is a configuration error (exit 2), a directory not this
// run's a provisioning one (exit 4); nil when the script succeeded.
func OwnError(h infra.Host, res Result) error {
	err := res.Err()
	var ce *CmdError
	if err == nil || !errors.As(err, &ce) {
		return err
	}
	msg := strings.TrimSpace(ce.Stderr)
	switch res.ExitCode {
	case ownRefused:
		return exitcode.Errorf(exitcode.Config, "%s: %s", h.Name, msg)
	case ownForeign:
		return exitcode.Errorf(exitcode.Provision, "%s: %s", h.Name, msg)
	}
	return exitcode.Wrap(exitcode.Provision, err)
}

// OwnParents are a host's parents of own directories: its base and its
// data directories, each once.
func OwnParents(h infra.Host) []string {
	out := []string{h.Base}
	for _, d := range h.DataDirs {
		if d != h.Base {
			out = append(out, d)
		}
	}
	return out
}
