resource "google_compute_instance" "host" {
  name         = "h"
  machine_type = "n1-standard-16"
  network_interface {
    network = "default"
  }
}
