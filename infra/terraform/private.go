package terraform

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// secretFiles are the files of Terraform's working directory that can
// hold secrets (a cloud module's user data carries the hosts' private SSH
// host keys): the variables, the saved plan and the state with its
// backup. Terraform itself writes the plan and the state 0644 (checked
// with 1.5.7), so every command the Stack runs is followed by lockDown.
var secretFiles = []string{
	VarFileName,
	PlanFileName,
	StateFileName,
	StateFileName + ".backup",
}

// lockDown makes Terraform's working directory 0700 and its secret files
// 0600, then verifies it: a working directory made by an earlier version
// may have another mode, and Terraform writes its plan and state readable
// by all.
func lockDown(workDir string) error {
	if err := os.Chmod(workDir, 0o700); err != nil {
		return fmt.Errorf("securing %s: %w", workDir, err)
	}
	for _, name := range secretFiles {
		p := filepath.Join(workDir, name)
		if err := os.Chmod(p, 0o600); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("securing %s: %w", p, err)
		}
	}
	return checkLocked(workDir)
}

// checkLocked verifies that the working directory is 0700 and the secret
// files in it 0600.
func checkLocked(workDir string) error {
	var errs []error
	st, err := os.Stat(workDir)
	if err != nil {
		return fmt.Errorf("securing %s: %w", workDir, err)
	}
	if m := st.Mode().Perm(); m != 0o700 {
		errs = append(errs, fmt.Errorf("%s is mode %04o, want 0700 (it holds the hosts' private keys)", workDir, m))
	}
	for _, name := range secretFiles {
		p := filepath.Join(workDir, name)
		st, err := os.Stat(p)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if m := st.Mode().Perm(); m != 0o600 {
			errs = append(errs, fmt.Errorf("%s is mode %04o, want 0600 (it holds the hosts' private keys)", p, m))
		}
	}
	return errors.Join(errs...)
}
