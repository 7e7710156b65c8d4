terraform {
  # ybbench runs exactly Terraform 1.5.7; 1.5.0 is the oldest it accepts.
  required_version = ">= 1.5.0"

  required_providers {
    # Pinned exactly: the module is checked against this release's schema
    # (terraform/tfcheck), and a run must not pick up a newer one.
    google = {
      source  = "hashicorp/google"
      version = "6.50.0"
    }
  }
}

provider "google" {
  project = var.project
  region  = var.region
  zone    = var.zone

  # Every labelled resource of the run carries the run's labels, so that
  # the janitor can find it by run id and expiry even when Terraform's
  # state is lost. Networks and firewalls have no labels: they carry the
  # same facts in their description and a name derived from the run id.
  default_labels = local.labels
}
