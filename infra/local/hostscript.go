package local

import _ "embed"

// hostsScript is hosts.sh, the script that makes and removes a run's hosts
// on this machine (network namespaces on a bridge, each with its own sshd).
// It is embedded so that the ybbench binary carries the exact script it was
// built with; writeScript puts it into the run directory, and
// terraform/local runs it from there.
//
//go:embed hosts.sh
var hostsScript []byte
