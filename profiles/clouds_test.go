package profiles

import (
	"strings"
	"testing"
)

// The documented hardware per provider: c5.4xlarge with two 250 GB gp3
// volumes for the YCSB and sysbench profiles; i3.4xlarge with its two
// 1900 GB instance-store disks, or n1-standard-16 with two local SSDs, for
// the key-value one.
func TestBuiltInCloudHardware(t *testing.T) {
	c5 := CloudHardware{Type: "c5.4xlarge", ClientType: "c5.4xlarge", Disks: Disks{Count: 2, Kind: DiskGP3, SizeGB: 250}}
	want := map[string]map[string]CloudHardware{
		"ycsb-ysql":     {"aws": c5},
		"ycsb-ycql":     {"aws": c5},
		"sysbench-ysql": {"aws": c5},
		"kv-ycql": {
			"aws": {Type: "i3.4xlarge", ClientType: "i3.4xlarge", Disks: Disks{Count: 2, Kind: DiskInstanceStore, SizeGB: 1900}},
			"gcp": {Type: "n1-standard-16", ClientType: "n1-standard-16", Disks: Disks{Count: 2, Kind: DiskLocalSSD, SizeGB: 375}},
		},
	}
	for name, clouds := range want {
		p, err := Get(name)
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(p.Providers(), ","); got != strings.Join(sortedProviders(clouds), ",") {
			t.Errorf("%s: providers %s", name, got)
		}
		for provider, hw := range clouds {
			got, err := p.ForProvider(provider)
			if err != nil || got != hw {
				t.Errorf("%s on %s: %+v, %v; want %+v", name, provider, got, err, hw)
			}
		}
	}
}

// A provider the profile has no hardware for is an error naming the ones
// it has.
func TestForProviderNamesTheClouds(t *testing.T) {
	p, err := Get("ycsb-ysql")
	if err != nil {
		t.Fatal(err)
	}
	_, err = p.ForProvider("gcp")
	if err == nil || !strings.Contains(err.Error(), "profile ycsb-ysql has no gcp hardware (it has: aws)") {
		t.Errorf("error %v", err)
	}
	bare := &Profile{Name: "x"}
	if _, err := bare.ForProvider("aws"); err == nil || !strings.Contains(err.Error(), "no cloud hardware") {
		t.Errorf("error %v", err)
	}
}

// Every defect of hardware.clouds is reported at once, each naming its
// field.
func TestCloudHardwareDefects(t *testing.T) {
	src := `name: x
family: ycsb
workloads: [a]
hardware:
  clouds:
    aws: {type: c5.4xlarge, disks: {count: 2, kind: local-ssd, size_gb: 250}}
    gcp: {type: n1-standard-16, client_type: n1-standard-16, disks: {count: 0, kind: local-ssd, size_gb: 400}}
    azure: {type: x}
    aws2: {type: c5.4xlarge, client_type: c5.4xlarge, disks: {count: 2, kind: nvme, size_gb: 1}}
`
	_, err := Parse("x.yaml", []byte(src))
	if err == nil {
		t.Fatal("no error")
	}
	for _, want := range []string{
		"x.yaml: ",
		"hardware.clouds.aws.client_type: missing",
		"hardware.clouds.aws.disks.kind: local-ssd disks are gcp's, not aws's",
		"hardware.clouds.gcp.disks.count: 0, want 1 to 8",
		"hardware.clouds.gcp.disks.size_gb: 400, but every GCP local SSD is 375 GB",
		"hardware.clouds.azure: unknown provider (aws or gcp)",
		"hardware.clouds.aws2: unknown provider",
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
}
