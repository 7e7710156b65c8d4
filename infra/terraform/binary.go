package terraform

import (
	"context"
	"errors"
	"os"
	"os/exec"

	"github.com/ybbench/ybbench/internal/exitcode"
)

// RequiredVersion is the one Terraform version ybbench runs: the modules are
// written and tested against it (1.5.7 is the last MPL-licensed release, and
// the one the test environment builds).
const RequiredVersion = "1.5.7"

// EnvBinary names the environment variable that points at the terraform
// executable when no explicit path is given.
const EnvBinary = "YBBENCH_TERRAFORM"

// installHint says how to get the right binary.
const installHint = "install Terraform " + RequiredVersion + " with `go install github.com/hashicorp/terraform@v" +
	RequiredVersion + "` (then put $(go env GOPATH)/bin on PATH) or `make setup`, or set " + EnvBinary + " to its path"

// FindBinary returns the terraform executable to use: explicit when not
// empty, else $YBBENCH_TERRAFORM, else `terraform` on PATH. It does not run
// it; New checks the version.
func FindBinary(explicit string) (string, error) {
	from, path := "the explicit path", explicit
	if path == "" {
		from, path = "$"+EnvBinary, os.Getenv(EnvBinary)
	}
	if path == "" {
		p, err := exec.LookPath("terraform")
		if err != nil {
			return "", exitcode.Errorf(exitcode.Config, "terraform not found on PATH: %s", installHint)
		}
		return p, nil
	}
	st, err := os.Stat(path)
	if err != nil {
		return "", exitcode.Errorf(exitcode.Config, "terraform not found at %s (%s): %v; %s", path, from, errors.Unwrap(err), installHint)
	}
	if st.IsDir() || st.Mode().Perm()&0o111 == 0 {
		return "", exitcode.Errorf(exitcode.Config, "terraform at %s (%s) is not an executable file; %s", path, from, installHint)
	}
	return path, nil
}

// checkVersion runs `terraform version -json` (through tfexec) and insists on
// RequiredVersion: another version may plan the same module differently.
func (s *Stack) checkVersion(ctx context.Context) error {
	err := s.run(ctx, "version", func(ctx context.Context) error {
		v, _, err := s.tf.Version(ctx, true /* skipCache */)
		if err != nil {
			return err
		}
		s.version = v.String()
		return nil
	})
	if err != nil {
		if ctx.Err() != nil {
			return err
		}
		return exitcode.Errorf(exitcode.Config, "terraform at %s does not run: %v; %s", s.binary, err, installHint)
	}
	if s.version != RequiredVersion {
		return exitcode.Errorf(exitcode.Config, "terraform at %s is version %s; ybbench needs exactly %s: %s",
			s.binary, s.version, RequiredVersion, installHint)
	}
	return nil
}
