// Package gcp is the "gcp" infrastructure provider: a run's hosts on
// Compute Engine, made by the embedded terraform/gcp module through
// infra/terraform.Stack, checked before they are made, and found again by
// their labels and names when Terraform's destroy leaves something behind
// (cloud.google.com/go/compute).
package gcp

// ProviderName is the provider's name in specs and cluster.json.
const ProviderName = "gcp"

// The defaults of the run's cloud settings on gcp: the region the price
// table covers (infra/cost), a zone of it, and Canonical's Ubuntu 22.04
// LTS image family.
const (
	DefaultRegion = "us-central1"
	DefaultZone   = "us-central1-a"
	DefaultImage  = "ubuntu-os-cloud/ubuntu-2204-lts"
)
