package gcp

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ybbench/ybbench/infra"
	"github.com/ybbench/ybbench/internal/exitcode"
	"github.com/ybbench/ybbench/internal/golden"
)

// planText is a plan as ybbench plan shows it: hosts, then what up does.
func planText(hosts []infra.PlannedHost, create string) string {
	var b strings.Builder
	for _, h := range hosts {
		fmt.Fprintf(&b, "%-9s %-7s %s\n", h.Name, h.Roles[0], h.Where)
	}
	b.WriteString("up: " + create + "\n")
	return b.String()
}

// TestPlanGolden: kv-ycql's GCP hardware planned without credentials (no
// client options: the provider would look for credentials if it asked
// anything), then the same without a project or ssh_cidr yet, and with
// zone_fallback in another zone.
func TestPlanGolden(t *testing.T) {
	p := New()
	spec := testSpec(t)
	hosts, create, err := p.Plan(spec)
	if err != nil {
		t.Fatal(err)
	}
	out := planText(hosts, create)

	spec = testSpec(t)
	spec.Name, spec.Zone, spec.Lifetime = "", "us-central1-f", 2*time.Hour
	spec.ClientType, spec.ClientHosts = "n2-standard-8", 2
	spec.Options = map[string]string{infra.OptionZoneFallback: "true", infra.OptionImage: "ubuntu-os-cloud/ubuntu-2404-lts-amd64"}
	hosts, create, err = p.Plan(spec)
	if err != nil {
		t.Fatal(err)
	}
	out += "\n" + planText(hosts, create)
	golden.Check(t, "plan.golden", []byte(out))
}

func TestPlanRefusesBadInput(t *testing.T) {
	spec := testSpec(t)
	spec.InstanceType = "N1 Standard"
	spec.Disks = infra.Disks{Count: 2, Kind: "gp3", SizeGB: 250}
	spec.Region, spec.Zone = "us-central1", "us-east1-b"
	spec.Options[infra.OptionSSHCIDR] = "10.0.0.0/8"
	spec.Options["subnet"] = "10.1.0.0/24"
	_, _, err := New().Plan(spec)
	if exitcode.Of(err) != exitcode.Config {
		t.Fatalf("exit %d, want 2: %v", exitcode.Of(err), err)
	}
	settings := settingErrors(err)
	for _, s := range []string{SettingZone, infra.OptionSSHCIDR, "subnet"} {
		if settings[s] == "" {
			t.Errorf("no problem named %s: %v", s, err)
		}
	}
	for _, want := range []string{`machine type "N1 Standard"`, `disks: kind "gp3"`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%v\ndoes not say %q", err, want)
		}
	}
}
