// Package cloudtest is what the tests of the cloud path need and no user
// does: the cloud modules with files of a test's own, and a provider that maps
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

// AWSModule is terraform/aws as the binary embeds it, plus extra files
// (name → contents), such as an override file (a name ending in
// _override.tf, which Terraform merges into the blocks of the same name)
// with which a test breaks or bounds the module. The real AWS provider
// needs none to reach moto: the environment's AWS_ENDPOINT_URL and static
// credentials serve it as they serve the SDK.
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
