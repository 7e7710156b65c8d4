package aws

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ybbench/ybbench/infra"
	"github.com/ybbench/ybbench/internal/exitcode"
	"github.com/ybbench/ybbench/internal/golden"
)

// planText is Plan's answer as `ybbench plan` would list it.
func planText(t *testing.T, spec infra.ClusterSpec) string {
	t.Helper()
	hosts, create, err := New().Plan(spec)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, h := range hosts {
		fmt.Fprintf(&b, "%s %v: %s\n", h.Name, h.Roles, h.Where)
	}
	b.WriteString("create:\n" + create + "\n")
	return b.String()
}

func TestPlanGolden(t *testing.T) {
	golden.Check(t, "plan-c5.txt", []byte(planText(t, c5Spec())))

	i3 := i3Spec()
	i3.Region, i3.Zone = "us-east-1", "us-east-1e"
	i3.Options[infra.OptionImage] = "ami-0123456789abcdef0"
	i3.Options[infra.OptionZoneFallback] = "true"
	delete(i3.Options, infra.OptionSSHCIDR) // found at up, not known yet
	golden.Check(t, "plan-i3.txt", []byte(planText(t, i3)))
}

// TestPlanRefusesBadSettings: every bad setting but a missing ssh_cidr is
// an error of Plan, exit 2.
func TestPlanRefusesBadSettings(t *testing.T) {
	spec := c5Spec()
	spec.Zone = "us-west-2a" // not of the default region, us-east-1
	spec.Options[infra.OptionImage] = "ubuntu"
	_, _, err := New().Plan(spec)
	if exitcode.Of(err) != exitcode.Config || !strings.Contains(err.Error(), "zone") || !strings.Contains(err.Error(), "image") {
		t.Errorf("Plan: %v (exit %d)", err, exitcode.Of(err))
	}
}
