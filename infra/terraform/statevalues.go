package terraform

import (
	"context"
	"fmt"

	tfjson "github.com/hashicorp/terraform-json"
)

// StateValues returns every string value in the state's resources, nested
// attributes included (`terraform show -json`): the ids of what the state
// records, and of what it records inside another resource (an instance's
// volumes), for a caller that must tell what the cloud holds of a run
// from what Terraform knows of. Without a state file it returns an empty
// set: Terraform knows of nothing.
func (s *Stack) StateValues(ctx context.Context) (map[string]bool, error) {
	out := map[string]bool{}
	ok, err := fileExists(s.path(StateFileName))
	if err != nil || !ok {
		return out, err
	}
	var st *tfjson.State
	err = s.run(ctx, "show", func(ctx context.Context) error {
		var err error
		st, err = s.tf.Show(ctx)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("terraform show: %w", err)
	}
	if st == nil || st.Values == nil {
		return out, nil
	}
	var walkModule func(m *tfjson.StateModule)
	walkModule = func(m *tfjson.StateModule) {
		if m == nil {
			return
		}
		for _, r := range m.Resources {
			collectStrings(r.AttributeValues, out)
		}
		for _, c := range m.ChildModules {
			walkModule(c)
		}
	}
	walkModule(st.Values.RootModule)
	return out, nil
}

func collectStrings(v any, out map[string]bool) {
	switch x := v.(type) {
	case string:
		out[x] = true
	case map[string]any:
		for _, e := range x {
			collectStrings(e, out)
		}
	case []any:
		for _, e := range x {
			collectStrings(e, out)
		}
	}
}
