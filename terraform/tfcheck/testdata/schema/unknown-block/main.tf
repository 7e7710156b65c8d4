resource "aws_instance" "host" {
  ami           = "ami-0123456789abcdef0"
  instance_type = "c5.4xlarge"
  ebs_volume {
    device_name = "/dev/sdf"
  }
}
