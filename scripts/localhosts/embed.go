// Package localhosts carries hosts.sh, the script that makes and removes the
// hosts of a run on this machine (network namespaces on a bridge, each with
// its own sshd), so that the ybbench binary has the exact script it was built
// with. The local provider writes it into the run directory and terraform/local
// runs it from there.
package localhosts

import _ "embed"

// Script is hosts.sh.
//
//go:embed hosts.sh
var Script []byte
