package terraform

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-exec/tfexec"
)

// Destroy runs `terraform destroy` in the working directory, with the module
// copy and variables Init left there. Without a state file nothing was ever
// applied, and it returns nil without running Terraform.
func (s *Stack) Destroy(ctx context.Context) error {
	ok, err := fileExists(s.path(StateFileName))
	if err != nil {
		return fmt.Errorf("terraform destroy: %w", err)
	}
	if !ok {
		s.log.Info("terraform: no state, nothing to destroy", "dir", s.workDir)
		return nil
	}
	var opts []tfexec.DestroyOption
	varFile := s.path(VarFileName)
	if ok, _ := fileExists(varFile); ok {
		opts = append(opts, tfexec.VarFile(varFile))
	}
	return s.run(ctx, "destroy", func(ctx context.Context) error {
		return s.tf.Destroy(ctx, opts...)
	})
}
