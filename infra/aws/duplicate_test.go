package aws

import (
	"errors"
	"fmt"
	"testing"

	"github.com/ybbench/ybbench/infra/terraform"
)

// Only an apply refused a create as a duplicate of something named after
// this run is the run's own retried create; another run's duplicate,
// another refusal naming the run, or a destroy is not.
func TestOwnDuplicate(t *testing.T) {
	const run = "r20261207-a1"
	apply := func(stderr string) error {
		return fmt.Errorf("aws hosts: %w", &terraform.Error{Command: "apply", Stderr: stderr, Err: errors.New("exit status 1")})
	}
	for _, c := range []struct {
		name string
		err  error
		want bool
	}{
		{"own group", apply("Error: creating Security Group (ybbench-" + run + "): api error InvalidGroup.Duplicate: The security group 'ybbench-" + run + "' already exists"), true},
		{"own key pair", apply("Error: importing EC2 Key Pair (ybbench-" + run + "): api error InvalidKeyPair.Duplicate: The keypair already exists"), true},
		{"another run's", apply("Error: creating Security Group (ybbench-r20261207-b2): api error InvalidGroup.Duplicate: already exists"), false},
		{"another refusal", apply("Error: creating Security Group (ybbench-" + run + "): api error UnauthorizedOperation: not allowed"), false},
		{"destroy", fmt.Errorf("%w", &terraform.Error{Command: "destroy", Stderr: "InvalidGroup.Duplicate ybbench-" + run}), false},
		{"not terraform's", errors.New("InvalidGroup.Duplicate ybbench-" + run), false},
	} {
		if got := ownDuplicate(c.err, run); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}
