package terraform

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-exec/tfexec"
)

// Apply plans into the plan file and applies exactly that plan. Planning to a
// file first means what is applied is what the log shows as planned, and the
// plan stays in the run directory for inspection. The plan is applied even
// when it shows no changes (cheap, and it keeps outputs current).
func (s *Stack) Apply(ctx context.Context) error {
	varFile := s.path(VarFileName)
	if ok, err := fileExists(varFile); err != nil || !ok {
		return fmt.Errorf("terraform apply: no variables file %s: call Init first", varFile)
	}
	planFile := s.path(PlanFileName)
	err := s.run(ctx, "plan", func(ctx context.Context) error {
		// The "changes present" result is not used: the plan is applied either way.
		_, err := s.tf.Plan(ctx, tfexec.Out(planFile), tfexec.VarFile(varFile))
		return err
	})
	if err != nil {
		return err
	}
	// No -var-file here: a saved plan carries its variables, and Terraform
	// refuses variables next to one.
	return s.run(ctx, "apply", func(ctx context.Context) error {
		return s.tf.Apply(ctx, tfexec.DirOrPlan(planFile))
	})
}
