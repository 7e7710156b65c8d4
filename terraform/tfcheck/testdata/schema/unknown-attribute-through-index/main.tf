resource "google_compute_network" "run" {
  for_each = toset(["a"])
  name     = "n-${each.key}"
}

output "net" {
  value = google_compute_network.run["a"].net_id
}
