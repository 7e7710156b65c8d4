// Package terraform carries ybbench's Terraform modules (the HCL in this
// directory's subdirectories), so that the ybbench binary has the exact
// modules it was built with, wherever it runs. Each module keeps the same
// contract: an output "hosts", a list of {name, role, public_ip, private_ip,
// zone} (the cloud modules add provider_id and instance_type), read by
// infra/terraform.
package terraform

import (
	"embed"
	"io/fs"
)

//go:embed local/*.tf aws/*.tf gcp/*.tf
var modules embed.FS

// Local returns the files of terraform/local: hosts on this machine.
func Local() fs.FS { return module("local") }

// AWS returns the files of terraform/aws: hosts on EC2, in a VPC of the
// run's own.
func AWS() fs.FS { return module("aws") }

// GCP returns the files of terraform/gcp: hosts on Compute Engine, in a
// network of the run's own.
func GCP() fs.FS { return module("gcp") }

func module(dir string) fs.FS {
	sub, err := fs.Sub(modules, dir)
	if err != nil {
		// Cannot happen: the directories are embedded above.
		panic(err)
	}
	return sub
}
