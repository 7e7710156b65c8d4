// Package cloudtest is what the tests of the cloud path need and no user
// does: the aws module pointed at a moto server, and a provider that maps
// each cloud host onto a host of this machine's, so that the stages after
// `up` can run on a cloud-shaped run. Only tests import it: neither the
// command line nor a spec can reach it, and the ybbench binary does not
// contain it.
package cloudtest

import (
	"fmt"
	"io/fs"
	"testing/fstest"

	modules "github.com/ybbench/ybbench/terraform"
)

// MotoOverrideFile is the override file's name in the module copy:
// Terraform merges a file ending in _override.tf into the provider block
// of the same name, so the module users run is unchanged.
const MotoOverrideFile = "moto_override.tf"

// MotoOverride is the provider configuration that aims the real AWS
// provider at moto: every service the module uses at its endpoint, no
// credential check, no account lookup, no instance metadata.
func MotoOverride(motoURL string) string {
	return fmt.Sprintf(`# Written by the tests (infra/cloudtest): the real AWS provider against
# moto at %[1]s. Never part of the module users run.
provider "aws" {
  skip_credentials_validation = true
  skip_requesting_account_id  = true
  skip_metadata_api_check     = true
  skip_region_validation      = true

  endpoints {
    ec2 = %[1]q
    sts = %[1]q
    iam = %[1]q
  }
}
`, motoURL)
}

// AWSModule is terraform/aws as the binary embeds it, plus extra files
// (name → contents): MotoOverrideFile, and whatever a test adds to break
// or bound the module.
func AWSModule(extra map[string]string) (fs.FS, error) {
	return overlay(modules.AWS(), extra)
}

// GCPModule is terraform/gcp plus extra files.
func GCPModule(extra map[string]string) (fs.FS, error) {
	return overlay(modules.GCP(), extra)
}

func overlay(base fs.FS, extra map[string]string) (fs.FS, error) {
	out := fstest.MapFS{}
	err := fs.WalkDir(base, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(base, path)
		if err != nil {
			return err
		}
		out[path] = &fstest.MapFile{Data: b, Mode: 0o644}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("cloudtest: reading the module: %w", err)
	}
	for name, text := range extra {
		out[name] = &fstest.MapFile{Data: []byte(text), Mode: 0o644}
	}
	return out, nil
}
