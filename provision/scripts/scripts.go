// Package scripts holds the shell library every database flavor's remote
// scripts share: process checks that never signal a reused pid, a bounded
// stop, and the check that a Base belongs to its host.
package scripts

import _ "embed"

// Proc is the "proc" template: define it beside a flavor's templates and
// include it with {{template "proc"}}; the flavor sets proc_rec and
// proc_fail to its own record and failure functions.
//
//go:embed proc.sh.tmpl
var Proc string
