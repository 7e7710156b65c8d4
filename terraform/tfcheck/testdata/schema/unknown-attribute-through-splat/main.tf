resource "aws_vpc" "run" {
  count      = 2
  cidr_block = "10.42.0.0/16"
}

output "ids" {
  value = aws_vpc.run[*].vpc_identifier
}
