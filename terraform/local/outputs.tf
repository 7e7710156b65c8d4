# The contract every ybbench module keeps: a list of hosts in cluster order,
# each {name, role, public_ip, private_ip, zone}. Built from the resources, so
# it lists only hosts that were made.
output "hosts" {
  description = "The run's hosts, in the order of var.hosts."
  value = [
    for h in var.hosts : {
      name       = terraform_data.host[h.name].output.name
      role       = terraform_data.host[h.name].output.role
      public_ip  = terraform_data.host[h.name].output.address
      private_ip = terraform_data.host[h.name].output.address
      zone       = "local"
    }
  ]
}
