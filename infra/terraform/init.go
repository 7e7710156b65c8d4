package terraform

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/hashicorp/terraform-exec/tfexec"

	"github.com/ybbench/ybbench/internal/atomicfile"
	"github.com/ybbench/ybbench/internal/exitcode"
)

// Init copies the module into the working directory, writes the variables
// file and runs `terraform init`. It is idempotent: a second Init refreshes
// the copy and the variables (a Create re-run on the same run applies the
// module it was given then).
//
// The module is copied rather than referenced so that the run keeps the exact
// configuration its resources were made with: `ybbench down` works from the
// run directory alone, whatever became of the checkout that made it.
func (s *Stack) Init(ctx context.Context) error {
	if s.module == nil {
		return fmt.Errorf("terraform init: no module given")
	}
	if err := copyModule(s.module, s.workDir); err != nil {
		return fmt.Errorf("terraform init: copying the module: %w", err)
	}
	if err := s.writeVars(); err != nil {
		return err
	}
	return s.run(ctx, "init", func(ctx context.Context) error {
		return s.tf.Init(ctx, tfexec.Upgrade(false))
	})
}

// writeVars writes the variables file, 0600: cloud modules' variables can
// hold credentials.
func (s *Stack) writeVars() error {
	vars := s.vars
	if vars == nil {
		vars = map[string]any{}
	}
	if _, err := json.Marshal(vars); err != nil {
		return exitcode.Wrap(exitcode.Config, fmt.Errorf("terraform variables: %w", err))
	}
	if err := atomicfile.WriteJSON(s.path(VarFileName), vars, 0o600); err != nil {
		return fmt.Errorf("terraform variables: %w", err)
	}
	return nil
}

// skipped reports whether a module file stays out of the copy: Terraform's
// own working files, which belong to a run and never to a module.
func skipped(name string, dir bool) bool {
	switch {
	case dir && name == ".terraform":
		return true
	case name == VarFileName, name == PlanFileName:
		return true
	case strings.HasPrefix(name, StateFileName), // state, its backup
		strings.HasSuffix(name, ".tfvars"), strings.HasSuffix(name, ".tfvars.json"):
		return true
	}
	return false
}

// copyModule copies the module's files into dst. Configuration files of an
// earlier copy are removed first, so a file deleted from the module does not
// linger in the run.
func copyModule(module fs.FS, dst string) error {
	old, err := filepath.Glob(filepath.Join(dst, "*.tf"))
	if err != nil {
		return err
	}
	oldJSON, _ := filepath.Glob(filepath.Join(dst, "*.tf.json"))
	for _, f := range append(old, oldJSON...) {
		if err := os.Remove(f); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	n := 0
	err = fs.WalkDir(module, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p == "." {
			return nil
		}
		if skipped(path.Base(p), d.IsDir()) {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		target := filepath.Join(dst, filepath.FromSlash(p))
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		b, err := fs.ReadFile(module, p)
		if err != nil {
			return err
		}
		if strings.HasSuffix(p, ".tf") || strings.HasSuffix(p, ".tf.json") {
			n++
		}
		return os.WriteFile(target, b, 0o644)
	})
	if err != nil {
		return err
	}
	if n == 0 {
		return errors.New("the module has no .tf files")
	}
	return nil
}
