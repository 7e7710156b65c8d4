resource "aws_security_group" "g" {
  name = "g"
  ingress = [{
    from_port   = 22
    to_port     = 22
    protocol    = "tcp"
    cidr_blocks = ["10.0.0.0/8"]
    cidr_block  = "10.0.0.0/8"
  }]
}
