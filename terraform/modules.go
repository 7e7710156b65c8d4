// Package terraform carries ybbench's Terraform modules (the HCL in this
// directory's subdirectories), so that the ybbench binary has the exact
// modules it was built with, wherever it runs. Each module keeps the same
// contract: an output "hosts", a list of {name, role, public_ip, private_ip,
// zone}, read by infra/terraform.
package terraform

import (
	"embed"
	"io/fs"
)

//go:embed local/*.tf
var modules embed.FS

// Local returns the files of terraform/local: hosts on this machine.
func Local() fs.FS {
	sub, err := fs.Sub(modules, "local")
	if err != nil {
		// Cannot happen: the directory is embedded above.
		panic(err)
	}
	return sub
}
