# The label values arrive in GCP's label syntax (lowercase letters, digits,
# '_' and '-', at most 63 characters), computed by ybbench: times as Unix
# seconds.
variable "run_id" {
  description = "The run's id as a label value: the ybbench-run-id label."
  type        = string
  validation {
    condition     = can(regex("^[a-z0-9_-]{1,63}$", var.run_id))
    error_message = "run_id: a label value, 1-63 lowercase letters, digits, '_' and '-'."
  }
}

variable "run_hash" {
  description = "The first 16 hex digits of sha256(run id): the ybbench-run-hash label, the run's exact mark (run_id is the id cut and lowercased to fit a label)."
  type        = string
  validation {
    condition     = can(regex("^[0-9a-f]{16}$", var.run_hash))
    error_message = "run_hash: 16 lowercase hex digits."
  }
}

variable "owner" {
  description = "Who started the run, as a label value (empty when unknown): the ybbench-owner label."
  type        = string
  validation {
    condition     = can(regex("^[a-z0-9_-]{0,63}$", var.owner))
    error_message = "owner: a label value, at most 63 lowercase letters, digits, '_' and '-'."
  }
}

variable "created" {
  description = "When the run started, Unix seconds: the ybbench-created label."
  type        = string
  validation {
    condition     = can(regex("^[0-9]{1,20}$", var.created))
    error_message = "created: Unix seconds, such as 1796148000."
  }
}

variable "expires" {
  description = "When the run's resources may be deleted, Unix seconds: the ybbench-expires label."
  type        = string
  validation {
    condition     = can(regex("^[0-9]{1,20}$", var.expires))
    error_message = "expires: Unix seconds, such as 1796234400."
  }
}

variable "description_marks" {
  description = "What the descriptions of the network, subnetwork and firewalls (no labels) carry: the run id exactly as ybbench gave it, and created and expires in RFC 3339 UTC."
  type = object({
    run_id  = string
    created = string
    expires = string
  })
  validation {
    condition     = can(regex("^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$", var.description_marks.run_id))
    error_message = "description_marks.run_id: 1-64 letters, digits and ._-, no spaces."
  }
  validation {
    condition     = can(formatdate("YYYY", var.description_marks.created)) && can(formatdate("YYYY", var.description_marks.expires))
    error_message = "description_marks: created and expires are RFC 3339 times, such as 2026-12-01T17:30:15Z."
  }
}

variable "name_prefix" {
  description = "Prefix of every resource name, derived by ybbench from a hash of the run id (the janitor finds networks and firewalls by it)."
  type        = string
  validation {
    # The longest suffix added is "-internal" (9 characters); names are at most 63.
    condition     = can(regex("^[a-z]([a-z0-9-]{0,38}[a-z0-9])?$", var.name_prefix))
    error_message = "name_prefix: 1-40 lowercase letters, digits and '-', starting with a letter."
  }
}

variable "project" {
  description = "The GCP project."
  type        = string
}

variable "region" {
  description = "The region, such as us-central1."
  type        = string
}

variable "zone" {
  description = "The zone every host is in, such as us-central1-a."
  type        = string
  # That it is a zone of var.region is a precondition of the subnetwork:
  # Terraform before 1.9 refuses a validation that refers to another
  # variable.
  validation {
    condition     = can(regex("^[a-z]+(-[a-z]+)*[0-9]+-[a-z]$", var.zone))
    error_message = "zone: a zone's name, such as us-central1-a."
  }
}

variable "ssh_cidr" {
  description = "The only addresses that may reach port 22: the operator's, as an IPv4 CIDR of /16 or longer."
  type        = string
  validation {
    condition     = can(cidrhost(var.ssh_cidr, 0)) && !strcontains(var.ssh_cidr, ":") && try(tonumber(split("/", var.ssh_cidr)[1]) >= 16, false)
    error_message = "ssh_cidr: an IPv4 CIDR with a prefix of /16 or longer, such as 203.0.113.7/32 (never 0.0.0.0/0)."
  }
}

variable "image" {
  description = "The boot image, <project>/<family> (ubuntu-os-cloud/ubuntu-2204-lts by default, chosen by ybbench)."
  type        = string
  validation {
    condition     = can(regex("^[a-z][a-z0-9-]*/[a-z][a-z0-9-]*$", var.image))
    error_message = "image: <project>/<family>, such as ubuntu-os-cloud/ubuntu-2204-lts."
  }
}

variable "subnet_cidr" {
  description = "The run's one subnet: every port other than 22 is open only to it."
  type        = string
  default     = "10.42.1.0/24"
}

variable "hosts" {
  description = "The hosts, in cluster order: name, role (db or client), machine type and the number of local NVMe SSDs (375 GB each)."
  type = list(object({
    name            = string
    role            = string
    machine_type    = string
    local_ssd_count = number
  }))
  validation {
    condition     = length(var.hosts) > 0
    error_message = "hosts: at least one host."
  }
  validation {
    condition     = alltrue([for h in var.hosts : can(regex("^[a-z0-9]([a-z0-9-]{0,20}[a-z0-9])?$", h.name))])
    error_message = "hosts: names are 1-22 lowercase letters, digits and '-' (they end instance names of at most 63)."
  }
  validation {
    condition     = length(distinct([for h in var.hosts : h.name])) == length(var.hosts)
    error_message = "hosts: names must be unique."
  }
  validation {
    condition     = alltrue([for h in var.hosts : contains(["db", "client"], h.role)])
    error_message = "hosts: role is db or client."
  }
  validation {
    condition     = alltrue([for h in var.hosts : h.local_ssd_count >= 0 && h.local_ssd_count <= 24])
    error_message = "hosts: local_ssd_count is 0 to 24."
  }
}

# Sensitive: it holds each host's private SSH host key, which must not
# appear in plan output (the run's terraform.log).
variable "user_data" {
  description = "Each host's user data by host name (rendered by ybbench: it holds the host's SSH host keys)."
  type        = map(string)
  sensitive   = true
}

variable "boot_disk_gb" {
  description = "Size of each host's boot disk (pd-balanced), GB."
  type        = number
  default     = 50
}

variable "max_run_seconds" {
  description = "The hosts' lifetime: GCE deletes each host this long after it starts (30 minutes to 168 hours). Fixed per run: a change replaces the hosts."
  type        = number
  validation {
    condition     = var.max_run_seconds >= 1800 && var.max_run_seconds <= 604800
    error_message = "max_run_seconds: 1800 (30 minutes) to 604800 (168 hours)."
  }
}

variable "ssh_user" {
  description = "The login user the run's key is installed for."
  type        = string
  default     = "ubuntu"
}

variable "ssh_public_key" {
  description = "The run's SSH public key (an authorized_keys line without options)."
  type        = string
  validation {
    condition     = can(regex("^(ssh-|ecdsa-)[a-z0-9@.-]+ [A-Za-z0-9+/=]+", var.ssh_public_key))
    error_message = "ssh_public_key: an authorized_keys line such as 'ssh-ed25519 AAAA... comment'."
  }
}
