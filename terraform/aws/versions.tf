terraform {
  # ybbench runs exactly Terraform 1.5.7; 1.5.0 is the oldest it accepts.
  required_version = ">= 1.5.0"

  required_providers {
    # Pinned exactly: the module is checked against this release's schema
    # (terraform/tfcheck), and a run must not pick up a newer one.
    aws = {
      source  = "hashicorp/aws"
      version = "6.25.0"
    }
  }
}

provider "aws" {
  region = var.region

  # Every taggable resource of the run carries the run's tags, so that the
  # janitor can find it by run id and expiry even when Terraform's state is
  # lost. Only resources tagged ybbench:managed are ever touched by it.
  default_tags {
    tags = local.tags
  }
}
