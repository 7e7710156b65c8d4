resource "google_compute_instance" "host" {
  name         = "h"
  machine_type = "n1-standard-16"
  boot_disk {}
  network_interface {
    network = "default"
  }
  dynamic "scratch_disk" {
    for_each = range(2)
    content {
      interface = "NVME"
      sizee     = 375
    }
  }
}
