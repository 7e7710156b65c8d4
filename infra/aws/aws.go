// Package aws is the "aws" infrastructure provider: a run's hosts on EC2,
// made by the embedded terraform/aws module through infra/terraform.Stack,
// checked before they are made, and found again by their tags when
// Terraform's destroy leaves something behind (aws-sdk-go-v2).
package aws

// ProviderName is the provider's name in specs and cluster.json.
const ProviderName = "aws"

// The defaults of the run's cloud settings on aws: the one region the
// price table prices whole (infra/cost: c5.4xlarge, i3.4xlarge and gp3,
// from a 2026 source; us-west-2 lacks a sourced gp3 price), a zone of it
// that offers both instance types, and Canonical's public SSM parameter
// for Ubuntu 22.04 LTS on amd64.
const (
	DefaultRegion = "us-east-1"
	DefaultZone   = "us-east-1a"
	DefaultImage  = "ssm:/aws/service/canonical/ubuntu/server/22.04/stable/current/amd64/hvm/ebs-gp2/ami-id"
)
