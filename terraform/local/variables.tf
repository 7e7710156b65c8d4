variable "run_id" {
  description = "The run's id; every name on the machine (namespaces, links) derives from it."
  type        = string
  validation {
    condition     = can(regex("^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$", var.run_id))
    error_message = "run_id: 1-64 characters of letters, digits, '.', '_' and '-'."
  }
}

variable "run_dir" {
  description = "The run's directory (absolute): hosts live in <run_dir>/hosts/<name>."
  type        = string
  validation {
    condition     = startswith(var.run_dir, "/")
    error_message = "run_dir must be an absolute path."
  }
}

variable "hosts" {
  description = "The hosts to make, in cluster order: name and role (db or client)."
  type = list(object({
    name = string
    role = string
  }))
  validation {
    condition     = length(var.hosts) > 0
    error_message = "hosts: at least one host."
  }
  validation {
    condition     = alltrue([for h in var.hosts : can(regex("^[a-z0-9]([a-z0-9-]{0,30}[a-z0-9])?$", h.name))])
    error_message = "hosts: names are 1-32 lowercase letters, digits and '-' (they name namespaces and directories)."
  }
  validation {
    condition     = length(distinct([for h in var.hosts : h.name])) == length(var.hosts)
    error_message = "hosts: names must be unique."
  }
  validation {
    condition     = alltrue([for h in var.hosts : contains(["db", "client"], h.role)])
    error_message = "hosts: role is db or client."
  }
}

variable "subnet" {
  description = "IPv4 subnet of the run's bridge: the bridge takes the first address, hosts the following ones. Must not overlap the machine's routes (the script checks)."
  type        = string
  default     = "10.213.0.0/24"
  validation {
    condition     = can(cidrhost(var.subnet, 0)) && !strcontains(var.subnet, ":") && try(tonumber(split("/", var.subnet)[1]) >= 16 && tonumber(split("/", var.subnet)[1]) <= 30, false)
    error_message = "subnet: an IPv4 CIDR with a prefix length of 16 to 30, such as 10.213.0.0/24."
  }
}

variable "script" {
  description = "Absolute path of hosts.sh (infra/local/hosts.sh, or the run's copy of it)."
  type        = string
  validation {
    condition     = startswith(var.script, "/")
    error_message = "script must be an absolute path."
  }
}

variable "bridge" {
  description = "Name of the run's bridge (at most 15 characters, unique on the machine)."
  type        = string
  validation {
    condition     = can(regex("^[A-Za-z0-9][A-Za-z0-9_.-]{0,14}$", var.bridge))
    error_message = "bridge: an interface name of at most 15 letters, digits, '_', '.' and '-'."
  }
}

variable "ssh_public_key" {
  description = "The run's SSH public key (an authorized_keys line); the only key the hosts accept."
  type        = string
  validation {
    condition     = can(regex("^(ssh-|ecdsa-|sk-)[a-z0-9@.-]+ [A-Za-z0-9+/=]+", var.ssh_public_key))
    error_message = "ssh_public_key: an authorized_keys line such as 'ssh-ed25519 AAAA... comment'."
  }
}
