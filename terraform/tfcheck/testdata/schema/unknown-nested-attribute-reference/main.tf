resource "aws_instance" "host" {
  ami           = "ami-0123456789abcdef0"
  instance_type = "c5.4xlarge"
  ebs_block_device {
    device_name = "/dev/sdf"
  }
}

output "volumes" {
  value = [aws_instance.host.ebs_block_device[0].volume_id, aws_instance.host.ebs_block_device[0].volume_arn]
}
