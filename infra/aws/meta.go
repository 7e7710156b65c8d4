package aws

import (
	"strings"

	"github.com/ybbench/ybbench/infra"
)

// Keys of Cluster.Meta. Destroy works from the first three alone
// (cluster.json suffices, whatever became of the process or the checkout
// that made the run); the others are what the check before Create found,
// recorded with the run.
const (
	MetaRunDir          = infra.MetaRunDir
	MetaRegion          = infra.MetaRegion
	MetaTerraformBinary = infra.MetaTerraformBinary

	MetaZone       = "zone"
	MetaZoneReason = "zone_reason" // "as set", or why zone_fallback chose another
	MetaAccount    = "account"
	MetaARN        = "arn"
	MetaImage      = "image" // the image setting (ami-… or ssm:<path>)
	MetaAMI        = "ami"   // the AMI id the hosts run
	MetaVCPUs      = "vcpus" // how the run fits the vCPU quota
	MetaWarnings   = "warnings"
)

// meta is the Cluster.Meta of a run made with these facts.
func (f *facts) meta(runDir string) map[string]string {
	m := map[string]string{
		MetaRunDir:                 runDir,
		MetaRegion:                 f.region,
		MetaTerraformBinary:        f.terraformBinary,
		infra.MetaTerraformVersion: f.terraformVersion,
		MetaZone:                   f.zone,
		MetaZoneReason:             f.zoneReason,
		MetaAccount:                f.account,
		MetaARN:                    f.arn,
		MetaImage:                  f.image,
		MetaAMI:                    f.ami,
		MetaVCPUs:                  f.vcpus,
	}
	if len(f.warnings) > 0 {
		m[MetaWarnings] = strings.Join(f.warnings, "; ")
	}
	for k, v := range m {
		if v == "" {
			delete(m, k)
		}
	}
	return m
}
