//go:build integration || e2e

package local

import (
	"os"
	"testing"

	"github.com/ybbench/ybbench/internal/testenv"
)

// terraformFor returns the test environment's terraform 1.5.7, or skips
// (fails under `make test`).
func terraformFor(t *testing.T) string {
	t.Helper()
	e, err := testenv.Load()
	if err == nil && e.Terraform == "" {
		err = os.ErrNotExist
	}
	if err != nil {
		if testenv.Required() {
			t.Fatalf("terraform is not in the test environment: %v", err)
		}
		t.Skipf("terraform is not in the test environment: %v (run `make testenv`)", err)
	}
	t.Setenv("CHECKPOINT_DISABLE", "1")
	return e.Terraform
}
