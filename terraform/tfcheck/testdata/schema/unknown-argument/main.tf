resource "aws_vpc" "run" {
  cidr = "10.42.0.0/16"
}
