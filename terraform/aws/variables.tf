variable "run_id" {
  description = "The run's id: the value of the ybbench:run-id tag, and part of every name."
  type        = string
  validation {
    condition     = can(regex("^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$", var.run_id))
    error_message = "run_id: 1-64 characters of letters, digits, '.', '_' and '-'."
  }
}

variable "owner" {
  description = "Who started the run: the value of the ybbench:owner tag."
  type        = string
  validation {
    condition     = length(var.owner) > 0 && length(var.owner) <= 256
    error_message = "owner: 1-256 characters (an AWS tag value)."
  }
}

variable "created" {
  description = "When the run started, RFC 3339 UTC (2026-12-01T18:00:00Z): the ybbench:created tag."
  type        = string
  validation {
    condition     = can(regex("^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z$", var.created))
    error_message = "created: RFC 3339 UTC such as 2026-12-01T18:00:00Z."
  }
}

variable "expires" {
  description = "When the run's resources may be deleted, RFC 3339 UTC: the ybbench:expires tag. The hosts power themselves off then (user data)."
  type        = string
  validation {
    condition     = can(regex("^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z$", var.expires))
    error_message = "expires: RFC 3339 UTC such as 2026-12-02T18:00:00Z."
  }
}

variable "region" {
  description = "The AWS region, such as us-west-2."
  type        = string
}

variable "zone" {
  description = "The availability zone every host is in, such as us-west-2a: the subnet is pinned to it."
  type        = string
  validation {
    condition     = can(regex("^[a-z]{2}(-[a-z]+)+-[0-9][a-z]$", var.zone))
    error_message = "zone: an availability zone such as us-west-2a."
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

variable "ami" {
  description = "The image: an AMI id (ami-…) or resolve:ssm:<parameter> (Canonical's Ubuntu 22.04 parameter by default, chosen by ybbench)."
  type        = string
  validation {
    condition     = can(regex("^(ami-[0-9a-f]{8,17}|resolve:ssm:/.+)$", var.ami))
    error_message = "ami: an AMI id such as ami-0123456789abcdef0, or resolve:ssm:/<parameter path>."
  }
}

variable "vpc_cidr" {
  description = "The run's VPC."
  type        = string
  default     = "10.42.0.0/16"
}

variable "subnet_cidr" {
  description = "The run's one subnet, inside vpc_cidr: every port other than 22 is open only to it."
  type        = string
  default     = "10.42.1.0/24"
}

variable "hosts" {
  description = "The hosts, in cluster order: name, role (db or client), instance type, the number of gp3 data volumes (0 where the type has instance-store disks) and the host's user data (rendered by ybbench; it holds the host's SSH host keys)."
  type = list(object({
    name            = string
    role            = string
    instance_type   = string
    data_disk_count = number
    user_data       = string
  }))
  validation {
    condition     = length(var.hosts) > 0
    error_message = "hosts: at least one host."
  }
  validation {
    condition     = alltrue([for h in var.hosts : can(regex("^[a-z0-9]([a-z0-9-]{0,30}[a-z0-9])?$", h.name))])
    error_message = "hosts: names are 1-32 lowercase letters, digits and '-'."
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
    condition     = alltrue([for h in var.hosts : h.data_disk_count >= 0 && h.data_disk_count <= 8])
    error_message = "hosts: data_disk_count is 0 to 8."
  }
}

variable "data_disk_gb" {
  description = "Size of each gp3 data volume, GiB."
  type        = number
  default     = 250
  validation {
    condition     = var.data_disk_gb >= 1 && var.data_disk_gb <= 16384
    error_message = "data_disk_gb: 1 to 16384 (gp3's limits)."
  }
}

variable "root_disk_gb" {
  description = "Size of each host's root volume (gp3), GiB."
  type        = number
  default     = 50
}

variable "ssh_public_key" {
  description = "The run's SSH public key (an authorized_keys line), installed for the image's login user."
  type        = string
  validation {
    condition     = can(regex("^(ssh-|ecdsa-)[a-z0-9@.-]+ [A-Za-z0-9+/=]+", var.ssh_public_key))
    error_message = "ssh_public_key: an authorized_keys line such as 'ssh-ed25519 AAAA... comment'."
  }
}

variable "placement_group" {
  description = "Launch the hosts in a cluster placement group (lowest latency; more exposed to InsufficientInstanceCapacity)."
  type        = bool
  default     = false
}
