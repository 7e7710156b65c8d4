terraform {
  # terraform_data (1.4), strcontains (1.5); ybbench itself
  # runs exactly 1.5.7, the last MPL-licensed release.
  required_version = ">= 1.5.0"
}
