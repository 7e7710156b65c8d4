// Package aws is the "aws" infrastructure provider: a run's hosts on EC2,
// made by the embedded terraform/aws module through infra/terraform.Stack,
// checked before they are made, and found again by their tags when
// Terraform's destroy leaves something behind (aws-sdk-go-v2).
package aws

// ProviderName is the provider's name in specs and cluster.json.
const ProviderName = "aws"

// The defaults of the run's cloud settings on aws: the region and zone the
// price table covers (infra/cost), and Canonical's public SSM parameter for
// Ubuntu 22.04 LTS on amd64.
const (
	DefaultRegion = "us-west-2"
	DefaultZone   = "us-west-2a"
	DefaultImage  = "ssm:/aws/service/canonical/ubuntu/server/22.04/stable/current/amd64/hvm/ebs-gp2/ami-id"
)
