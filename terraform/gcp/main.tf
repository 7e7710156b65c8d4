locals {
  # The five keys the janitor and the other layers of teardown rely on, in
  # GCP's label syntax (values computed by ybbench), and the run id's hash,
  # the exact mark of the run (the run-id label is the id cut to fit).
  # infra/cloudtag.GCPLabels makes the same map and ParseGCPLabels reads
  # it back; a test in infra/gcp evaluates this one against them.
  labels = {
    "ybbench-run-id"   = var.run_id
    "ybbench-run-hash" = var.run_hash
    "ybbench-owner"    = var.owner
    "ybbench-created"  = var.created
    "ybbench-expires"  = var.expires
    "ybbench-managed"  = "true"
  }

  # What networks, subnetworks and firewalls (no labels) say instead: the
  # text of infra/cloudtag.GCPDescription, key=value words the janitor
  # parses (ParseGCPDescription), with the exact run id and RFC 3339 times.
  description = "Made by ybbench; deleted by `ybbench janitor` after its expiry. ybbench:managed=true ybbench:run-id=${var.description_marks.run_id} ybbench:created=${var.description_marks.created} ybbench:expires=${var.description_marks.expires}"

  # The network tag the firewall rules apply to: the run's hosts only.
  target_tag = var.name_prefix
  hosts      = { for h in var.hosts : h.name => h }
}

# A network of the run's own, in custom mode: one subnetwork, pinned to the
# region of the run's zone.
resource "google_compute_network" "run" {
  name                    = "${var.name_prefix}-net"
  description             = local.description
  auto_create_subnetworks = false
}

resource "google_compute_subnetwork" "run" {
  name          = "${var.name_prefix}-subnet"
  description   = local.description
  network       = google_compute_network.run.id
  region        = var.region
  ip_cidr_range = var.subnet_cidr

  lifecycle {
    precondition {
      condition     = startswith(var.zone, "${var.region}-")
      error_message = "zone: ${var.zone} is not a zone of region ${var.region}."
    }
  }
}

# SSH, the orchestrator's only way in: database ports are probed through
# the SSH connection, never directly. An ingress rule without
# source_ranges would be open to 0.0.0.0/0.
resource "google_compute_firewall" "ssh" {
  name          = "${var.name_prefix}-ssh"
  description   = local.description
  network       = google_compute_network.run.id
  direction     = "INGRESS"
  source_ranges = [var.ssh_cidr]
  target_tags   = [local.target_tag]

  allow {
    protocol = "tcp"
    ports    = ["22"]
  }
}

# Everything else (YugabyteDB's RPC, admin and client ports, PostgreSQL,
# Cassandra) between the run's hosts only. Egress needs no rule: GCP's
# implied rule allows it.
resource "google_compute_firewall" "internal" {
  name          = "${var.name_prefix}-internal"
  description   = local.description
  network       = google_compute_network.run.id
  direction     = "INGRESS"
  source_ranges = [google_compute_subnetwork.run.ip_cidr_range]
  target_tags   = [local.target_tag]

  allow {
    protocol = "all"
  }
}

resource "google_compute_instance" "host" {
  for_each = local.hosts

  name         = "${var.name_prefix}-${each.key}"
  machine_type = each.value.machine_type
  zone         = var.zone
  tags         = [local.target_tag]
  labels       = { "ybbench-role" = each.value.role }

  boot_disk {
    auto_delete = true
    initialize_params {
      image = var.image
      size  = var.boot_disk_gb
      type  = "pd-balanced"
      # The provider's default labels reach the instance, not the disk
      # it creates from these parameters.
      labels = local.labels
    }
  }

  # Local SSDs on NVMe: the hosts find them as
  # /dev/disk/by-id/google-local-nvme-ssd-N (user data).
  dynamic "scratch_disk" {
    for_each = range(each.value.local_ssd_count)
    content {
      interface = "NVME"
      size      = 375
    }
  }

  network_interface {
    subnetwork = google_compute_subnetwork.run.id
    # An ephemeral public address, reachable only on port 22.
    access_config {}
  }

  # Metadata keys only work with OS Login off; project-wide keys are not
  # accepted, so the run's key is the only one. Cloud-init reads user-data.
  metadata = {
    "ssh-keys"               = "${var.ssh_user}:${var.ssh_public_key}"
    "enable-oslogin"         = "FALSE"
    "block-project-ssh-keys" = "TRUE"
    "user-data"              = var.user_data[each.key]
  }

  # GCE's dead-man's switch: the host is deleted max_run_seconds after it
  # starts, whatever happens to the orchestrator (the host's own timer
  # powers it off at the same time).
  scheduling {
    provisioning_model          = "STANDARD"
    instance_termination_action = "DELETE"
    max_run_duration {
      seconds = var.max_run_seconds
    }
  }

  deletion_protection = false
}
