provider "aws" {
  regoin = "us-west-2"
}
