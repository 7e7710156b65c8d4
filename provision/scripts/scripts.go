// Package scripts holds the shell library every database flavor's remote
// scripts share: process checks that never signal a reused pid, a bounded
// stop, the check that a Base belongs to its host, and the run's own
// directories (claimed, marked, released).
package scripts

import _ "embed"

// Proc is the "proc" template: define it beside a flavor's templates and
// include it with {{template "proc"}}; the flavor sets proc_rec and
// proc_fail to its own record and failure functions.
//
//go:embed proc.sh.tmpl
var Proc string

// Own is the "own" template: the one place a run's directories on a host
// are made and removed (own_claim, own_release). It needs the template
// function systemPatterns (infra.SystemPathPatterns).
//
//go:embed own.sh.tmpl
var Own string
