resource "aws_vpcc" "run" {
  cidr_block = "10.42.0.0/16"
}
