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
	if _, err := s.Plan(ctx); err != nil {
		return err
	}
	// No -var-file here: a saved plan carries its variables, and Terraform
	// refuses variables next to one.
	return s.run(ctx, "apply", func(ctx context.Context) error {
		return s.tf.Apply(ctx, tfexec.DirOrPlan(s.path(PlanFileName)))
	})
}

// Plan plans into the plan file, with the variables Init wrote, and says
// whether the plan changes anything.
func (s *Stack) Plan(ctx context.Context) (changes bool, err error) {
	varFile := s.path(VarFileName)
	if ok, err := fileExists(varFile); err != nil || !ok {
		return false, fmt.Errorf("terraform plan: no variables file %s: call Init first", varFile)
	}
	err = s.run(ctx, "plan", func(ctx context.Context) error {
		var err error
		changes, err = s.tf.Plan(ctx, tfexec.Out(s.path(PlanFileName)), tfexec.VarFile(varFile))
		return err
	})
	return changes, err
}
