# The contract every ybbench module keeps (infra/terraform/hosts.go): the
# hosts in cluster order, each {name, role, public_ip, private_ip, zone},
# with the optional provider_id (the instance id) and instance_type.
output "hosts" {
  description = "The run's hosts, in the order of var.hosts."
  value = [
    for h in var.hosts : {
      name          = h.name
      role          = h.role
      public_ip     = aws_instance.host[h.name].public_ip
      private_ip    = aws_instance.host[h.name].private_ip
      zone          = aws_instance.host[h.name].availability_zone
      provider_id   = aws_instance.host[h.name].id
      instance_type = aws_instance.host[h.name].instance_type
    }
  ]
}
