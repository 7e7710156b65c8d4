resource "google_compute_instance" "host" {
  name         = "h"
  machine_type = "n1-standard-16"
  boot_disk {
    initialize_params {
      image   = "ubuntu-os-cloud/ubuntu-2204-lts"
      size_gb = 50
    }
  }
  network_interface {
    network = "default"
  }
}
