# The contract every ybbench module keeps (infra/terraform/hosts.go): the
# hosts in cluster order, each {name, role, public_ip, private_ip, zone},
# with the optional provider_id (the instance id) and instance_type.
output "hosts" {
  description = "The run's hosts, in the order of var.hosts."
  value = [
    for h in var.hosts : {
      name          = h.name
      role          = h.role
      public_ip     = google_compute_instance.host[h.name].network_interface[0].access_config[0].nat_ip
      private_ip    = google_compute_instance.host[h.name].network_interface[0].network_ip
      zone          = google_compute_instance.host[h.name].zone
      provider_id   = google_compute_instance.host[h.name].instance_id
      instance_type = google_compute_instance.host[h.name].machine_type
    }
  ]
}
