resource "aws_vpc_security_group_ingress_rule" "ssh" {
  security_group_id = "sg-0123456789abcdef0"
  from_port         = 22
  to_port           = 22
  cidr_ipv4         = "203.0.113.7/32"
}
