resource "aws_subnet" "run" {
  vpc_id     = aws_vpc.main.id
  cidr_block = "10.42.1.0/24"
}
