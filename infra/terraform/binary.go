package terraform

import (
	"context"
	"errors"
	"os"
	"os/exec"

	"github.com/hashicorp/go-version"

	"github.com/ybbench/ybbench/internal/exitcode"
)

// MinVersion is the oldest Terraform ybbench runs: the modules' own
// required_version (terraform/*/versions.tf). Any later release is
// accepted; the version used is recorded with the run.
const MinVersion = "1.5.0"

// TestedVersion is the release the test environment builds (1.5.7, the
// last MPL-licensed one; later releases cannot be built from the Go module
// proxy), and the one the install hint names.
const TestedVersion = "1.5.7"

// EnvBinary names the environment variable that points at the terraform
// executable when no explicit path is given.
const EnvBinary = "YBBENCH_TERRAFORM"

// installHint says how to get a usable binary.
const installHint = "install Terraform " + MinVersion + " or later (your distribution's or HashiCorp's release, or " + TestedVersion +
	" with `go install github.com/hashicorp/terraform@v" + TestedVersion + "`, then put $(go env GOPATH)/bin on PATH; in a clone of ybbench, " +
	"`scripts/testenv/tools.sh up .testenv` builds it into .testenv/bin/terraform), or set " +
	EnvBinary + " to its path"

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

// minVersion is MinVersion parsed once.
var minVersion = version.Must(version.NewVersion(MinVersion))

// checkVersion runs `terraform version -json` (through tfexec) and insists
// on MinVersion or later: an older release does not read the modules.
func (s *Stack) checkVersion(ctx context.Context) error {
	var v *version.Version
	err := s.run(ctx, "version", func(ctx context.Context) error {
		var err error
		v, _, err = s.tf.Version(ctx, true /* skipCache */)
		return err
	})
	if err != nil {
		if ctx.Err() != nil {
			return err
		}
		return exitcode.Errorf(exitcode.Config, "terraform at %s does not run: %v; %s", s.binary, err, installHint)
	}
	s.version = v.String()
	// A pre-release of the minimum (1.5.0-beta1) sorts before it and is
	// refused with the releases before it.
	if v.LessThan(minVersion) {
		return exitcode.Errorf(exitcode.Config, "terraform at %s is version %s; ybbench needs %s or later: %s",
			s.binary, s.version, MinVersion, installHint)
	}
	return nil
}
