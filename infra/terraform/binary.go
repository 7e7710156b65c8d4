package terraform

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"

	"github.com/hashicorp/go-version"
	"github.com/hashicorp/terraform-exec/tfexec"

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

// RunBinary is the terraform to work on an existing run with: configured
// when set, else recorded (the one that made the run, from the cluster's
// infra.MetaTerraformBinary) while it is still a file there, else "" for
// New's own search ($YBBENCH_TERRAFORM, PATH). The run's state was
// written by the recorded one, which a later session may not find on its
// PATH.
func RunBinary(configured, recorded string) string {
	if configured != "" {
		return configured
	}
	if recorded != "" {
		if st, err := os.Stat(recorded); err == nil && st.Mode().IsRegular() {
			return recorded
		}
	}
	return ""
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
	return tooOld(s.binary, v)
}

// tooOld refuses a release older than MinVersion. A pre-release of the
// minimum (1.5.0-beta1) sorts before it and is refused with the releases
// before it.
func tooOld(binary string, v *version.Version) error {
	if v.LessThan(minVersion) {
		return exitcode.Errorf(exitcode.Config, "terraform at %s is version %s; ybbench needs %s or later: %s",
			binary, v, MinVersion, installHint)
	}
	return nil
}

// CheckBinary finds the terraform executable as New does (explicit, else
// $YBBENCH_TERRAFORM, else PATH) and checks that it runs and is
// MinVersion or later, without a run directory: what is checked before a
// run is created. It returns the version. Its errors are bad
// configuration (exit 2).
func CheckBinary(ctx context.Context, explicit string) (string, error) {
	binary, err := FindBinary(explicit)
	if err != nil {
		return "", err
	}
	// `terraform version` reads no module, but tfexec wants a working
	// directory: an empty one of its own, so that nothing in the current
	// directory (a .terraform of someone else's) is read.
	dir, err := os.MkdirTemp("", "ybbench-terraform-version-")
	if err != nil {
		return "", fmt.Errorf("terraform: %w", err)
	}
	defer os.RemoveAll(dir)
	tf, err := tfexec.NewTerraform(dir, binary)
	if err != nil {
		return "", exitcode.Errorf(exitcode.Config, "terraform at %s: %v; %s", binary, err, installHint)
	}
	if err := tf.SetEnv(environment(os.Environ())); err != nil {
		return "", fmt.Errorf("terraform: environment: %w", err)
	}
	v, _, err := tf.Version(ctx, true /* skipCache */)
	if err != nil {
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		return "", exitcode.Errorf(exitcode.Config, "terraform at %s does not run: %v; %s", binary, err, installHint)
	}
	return v.String(), tooOld(binary, v)
}
