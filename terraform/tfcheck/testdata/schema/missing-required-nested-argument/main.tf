resource "google_compute_instance" "host" {
  name         = "h"
  machine_type = "n1-standard-16"
  boot_disk {}
  network_interface {
    network = "default"
  }
  scheduling {
    max_run_duration {
      nanos = 0
    }
  }
}
