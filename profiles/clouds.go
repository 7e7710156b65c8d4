package profiles

import (
	"errors"
	"fmt"
	"sort"
	"strings"
)

// CloudHardware is a profile's machines on one cloud provider: the
// database nodes' type, the client's, and each database node's data disks.
// The counts of nodes and clients are the profile's (Hardware.DB, .Client).
type CloudHardware struct {
	Type       string `yaml:"type"`
	ClientType string `yaml:"client_type"`
	Disks      Disks  `yaml:"disks"`
}

// Disks are a node's data disks, all alike.
type Disks struct {
	Count int `yaml:"count"`
	// Kind is gp3 (EBS volumes made with the node), instance-store (the
	// type's own NVMe disks) or local-ssd (GCP).
	Kind   string `yaml:"kind"`
	SizeGB int    `yaml:"size_gb"`
}

// Disk kinds, and the provider each belongs to.
const (
	DiskGP3           = "gp3"
	DiskInstanceStore = "instance-store"
	DiskLocalSSD      = "local-ssd"
)

var diskProvider = map[string]string{DiskGP3: "aws", DiskInstanceStore: "aws", DiskLocalSSD: "gcp"}

// gcpLocalSSDGB is the size of every GCP local SSD: it is not chosen.
const gcpLocalSSDGB = 375

// ForProvider returns the profile's hardware on a provider (aws, gcp), or
// an error naming the providers it has hardware for.
func (p *Profile) ForProvider(provider string) (CloudHardware, error) {
	if hw, ok := p.Hardware.Clouds[provider]; ok {
		return hw, nil
	}
	have := p.Providers()
	if len(have) == 0 {
		return CloudHardware{}, fmt.Errorf("profile %s has no cloud hardware (it runs on local hosts or an inventory only)", p.Name)
	}
	return CloudHardware{}, fmt.Errorf("profile %s has no %s hardware (it has: %s)", p.Name, provider, strings.Join(have, ", "))
}

// Providers lists the providers the profile has hardware for, sorted.
func (p *Profile) Providers() []string {
	out := make([]string, 0, len(p.Hardware.Clouds))
	for name := range p.Hardware.Clouds {
		out = append(out, name)
	}
	sort.Strings(out)
	return out
}

// checkClouds reports every problem of hardware.clouds at once, each
// naming its field.
func checkClouds(clouds map[string]CloudHardware) error {
	var errs []error
	for _, provider := range sortedProviders(clouds) {
		hw := clouds[provider]
		field := "hardware.clouds." + provider
		bad := func(format string, args ...any) {
			errs = append(errs, fmt.Errorf(field+format, args...))
		}
		if provider != "aws" && provider != "gcp" {
			bad(": unknown provider (aws or gcp)")
			continue
		}
		if hw.Type == "" {
			bad(".type: missing")
		}
		if hw.ClientType == "" {
			bad(".client_type: missing")
		}
		d := hw.Disks
		switch owner, ok := diskProvider[d.Kind]; {
		case !ok:
			bad(".disks.kind: %q is not one of gp3, instance-store, local-ssd", d.Kind)
		case owner != provider:
			bad(".disks.kind: %s disks are %s's, not %s's", d.Kind, owner, provider)
		}
		if d.Count < 1 || d.Count > 8 {
			bad(".disks.count: %d, want 1 to 8", d.Count)
		}
		if d.SizeGB < 1 {
			bad(".disks.size_gb: %d, want a positive size", d.SizeGB)
		} else if d.Kind == DiskLocalSSD && d.SizeGB != gcpLocalSSDGB {
			bad(".disks.size_gb: %d, but every GCP local SSD is %d GB", d.SizeGB, gcpLocalSSDGB)
		}
	}
	return errors.Join(errs...)
}

func sortedProviders(clouds map[string]CloudHardware) []string {
	out := make([]string, 0, len(clouds))
	for k := range clouds {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
