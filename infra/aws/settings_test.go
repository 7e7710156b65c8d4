package aws

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/ybbench/ybbench/infra"
)

// c5Spec is the published YCSB and sysbench setup: 3 c5.4xlarge db hosts
// with 2 gp3 volumes each and a c5.4xlarge client.
func c5Spec() infra.ClusterSpec {
	return infra.ClusterSpec{DBHosts: 3, ClientHosts: 1, InstanceType: "c5.4xlarge", ClientType: "c5.4xlarge",
		Disks: infra.Disks{Count: 2, Kind: diskGP3, SizeGB: 250}, Lifetime: 6 * time.Hour,
		Options: map[string]string{infra.OptionSSHCIDR: "203.0.113.7/32"}}
}

// i3Spec is the published KV setup: 3 i3.4xlarge with their 2 NVMe
// instance-store disks and an i3.4xlarge client.
func i3Spec() infra.ClusterSpec {
	s := c5Spec()
	s.InstanceType, s.ClientType = "i3.4xlarge", "i3.4xlarge"
	s.Disks = infra.Disks{Count: 2, Kind: diskInstanceStore, SizeGB: 1900}
	return s
}

func TestReadSettingsDefaults(t *testing.T) {
	spec := c5Spec()
	spec.ClientType = ""
	s, errs := readSettings(spec)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	if s.region != DefaultRegion || s.zone != DefaultZone || s.image != DefaultImage || s.clientType != "c5.4xlarge" || s.zoneFallback {
		t.Errorf("defaults: %+v", s)
	}

	spec.Region = "eu-west-1"
	if s, _ := readSettings(spec); s.zone != "eu-west-1a" {
		t.Errorf("zone in a region of its own: %q, want eu-west-1a", s.zone)
	}
	spec.Options[infra.OptionZoneFallback] = "true"
	spec.Options[infra.OptionImage] = "ami-0123456789abcdef0"
	spec.Options["subnet"] = "" // another provider's setting, not given
	if s, errs := readSettings(spec); len(errs) > 0 || !s.zoneFallback || s.image != "ami-0123456789abcdef0" {
		t.Errorf("options: %+v %v", s, errs)
	}
}

// TestReadSettingsReportsEveryProblem gives one bad value of every kind
// and expects a problem for each, those of a setting naming it.
func TestReadSettingsReportsEveryProblem(t *testing.T) {
	spec := c5Spec()
	spec.Region, spec.Zone = "us-west-2", "eu-west-1a"
	spec.DBHosts = 0
	spec.ClientType = "c5 4xlarge"
	spec.Disks = infra.Disks{Count: 2, Kind: "local-ssd", SizeGB: 375}
	spec.Options = map[string]string{
		infra.OptionSSHCIDR:      "0.0.0.0/0",
		infra.OptionImage:        "ubuntu-os-cloud/ubuntu-2204-lts",
		infra.OptionZoneFallback: "yes",
		"subnet":                 "10.0.0.0/24",
	}
	_, errs := readSettings(spec)
	wantSettings := map[string]string{
		"zone":                   "eu-west-1a is not a zone of region us-west-2",
		infra.OptionSSHCIDR:      "would open SSH to the whole internet",
		infra.OptionImage:        "want an AMI id",
		infra.OptionZoneFallback: `"yes": want true or false`,
		"subnet":                 "not a setting of the aws provider",
	}
	wantPlain := []string{"hosts: 0 db and 1 client", `client instance type "c5 4xlarge"`, `disks: kind "local-ssd"`}
	got := map[string]string{}
	var plain []string
	for _, e := range errs {
		var se *infra.SettingError
		if errors.As(e, &se) {
			got[se.Setting] = se.Err.Error()
		} else {
			plain = append(plain, e.Error())
		}
	}
	for k, want := range wantSettings {
		if !strings.Contains(got[k], want) {
			t.Errorf("setting %s: got %q, want it to contain %q", k, got[k], want)
		}
	}
	if len(got) != len(wantSettings) {
		t.Errorf("setting problems: %v", got)
	}
	if len(plain) != len(wantPlain) {
		t.Fatalf("other problems: %q, want %q", plain, wantPlain)
	}
	for i, w := range wantPlain {
		if !strings.Contains(plain[i], w) {
			t.Errorf("problem %d: %q, want it to contain %q", i, plain[i], w)
		}
	}
}

func TestCheckImage(t *testing.T) {
	for _, c := range []struct {
		in string
		ok bool
	}{
		{"ami-0123456789abcdef0", true},
		{"ami-12345678", true},
		{DefaultImage, true},
		{"ssm:/ybbench/test/ami", true},
		{"ssm:ybbench/no-slash", false},
		{"ssm:/with space", false},
		{"ami-XYZ", false},
		{"resolve:ssm:/aws/x", false},
	} {
		if err := checkImage(c.in); (err == nil) != c.ok {
			t.Errorf("checkImage(%q) = %v, want ok %v", c.in, err, c.ok)
		}
	}
}

func TestHosts(t *testing.T) {
	s, _ := readSettings(i3Spec())
	hs := s.hosts()
	if len(hs) != 4 || hs[0].name != "db-1" || hs[2].name != "db-3" || hs[3].name != "client-1" || hs[3].role != infra.RoleClient {
		t.Fatalf("hosts: %+v", hs)
	}
	if hs[0].dataDisks != 2 || hs[0].gp3 != 0 || hs[3].dataDisks != 0 {
		t.Errorf("i3 disks: %+v", hs)
	}
	c, _ := readSettings(c5Spec())
	if h := c.hosts()[0]; h.gp3 != 2 || h.dataDisks != 2 {
		t.Errorf("c5 db host: %+v", h)
	}
}
