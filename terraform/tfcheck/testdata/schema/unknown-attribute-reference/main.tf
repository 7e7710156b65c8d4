resource "aws_vpc" "run" {
  cidr_block = "10.42.0.0/16"
}

output "vpc" {
  value = aws_vpc.run.vpc_id
}
