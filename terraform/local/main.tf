locals {
  prefix_length = tonumber(split("/", var.subnet)[1])

  # Addresses are assigned here, in host order: the bridge holds the subnet's
  # first address, host i the (i+2)-th.
  hosts = {
    for i, h in var.hosts : h.name => {
      name    = h.name
      role    = h.role
      address = cidrhost(var.subnet, i + 2)
    }
  }

  # Everything the provisioners need travels in `input`: destroy-time
  # provisioners may reference only self (not even a local), and the run must
  # be removable from its state alone. The values reach the script as
  # environment variables that the commands quote, never spliced into shell
  # text.
  network = {
    script  = var.script
    run_id  = var.run_id
    run_dir = var.run_dir
    subnet  = var.subnet
    bridge  = var.bridge
  }
}

# The run's network: checks the machine (root, commands, subnet free of the
# machine's routes), creates the service user and the bridge. Its destroy
# removes everything of the run that is left, whatever the hosts' own
# destroys managed.
resource "terraform_data" "network" {
  input            = local.network
  triggers_replace = local.network

  lifecycle {
    precondition {
      # Network, bridge and broadcast addresses are not hosts.
      condition     = length(var.hosts) <= pow(2, 32 - local.prefix_length) - 3
      error_message = "subnet ${var.subnet} has room for ${pow(2, 32 - local.prefix_length) - 3} hosts, not ${length(var.hosts)}."
    }
  }

  provisioner "local-exec" {
    command = "exec /bin/bash \"$SCRIPT\" up --run-id \"$RUN_ID\" --run-dir \"$RUN_DIR\" --subnet \"$SUBNET\" --bridge \"$BRIDGE\""
    environment = {
      SCRIPT  = self.input.script
      RUN_ID  = self.input.run_id
      RUN_DIR = self.input.run_dir
      SUBNET  = self.input.subnet
      BRIDGE  = self.input.bridge
    }
  }

  provisioner "local-exec" {
    when    = destroy
    command = "exec /bin/bash \"$SCRIPT\" down --run-id \"$RUN_ID\" --run-dir \"$RUN_DIR\" --subnet \"$SUBNET\" --bridge \"$BRIDGE\" --all"
    environment = {
      SCRIPT  = self.input.script
      RUN_ID  = self.input.run_id
      RUN_DIR = self.input.run_dir
      SUBNET  = self.input.subnet
      BRIDGE  = self.input.bridge
    }
  }
}

# One host: a network namespace on the bridge with its own sshd. Terraform
# makes the hosts in parallel.
resource "terraform_data" "host" {
  for_each = local.hosts

  input = merge(local.network, {
    name           = each.value.name
    role           = each.value.role
    address        = each.value.address
    ssh_public_key = var.ssh_public_key
  })
  # Any change remakes the host: create-time provisioners run only on create.
  triggers_replace = merge(local.network, each.value, { ssh_public_key = var.ssh_public_key })

  depends_on = [terraform_data.network]

  provisioner "local-exec" {
    command = "exec /bin/bash \"$SCRIPT\" up --run-id \"$RUN_ID\" --run-dir \"$RUN_DIR\" --subnet \"$SUBNET\" --bridge \"$BRIDGE\" --pubkey \"$SSH_PUBLIC_KEY\" --host \"$HOST\""
    environment = {
      SCRIPT         = self.input.script
      RUN_ID         = self.input.run_id
      RUN_DIR        = self.input.run_dir
      SUBNET         = self.input.subnet
      BRIDGE         = self.input.bridge
      SSH_PUBLIC_KEY = self.input.ssh_public_key
      HOST           = "${self.input.name}=${self.input.address}"
    }
  }

  provisioner "local-exec" {
    when    = destroy
    command = "exec /bin/bash \"$SCRIPT\" down --run-id \"$RUN_ID\" --run-dir \"$RUN_DIR\" --subnet \"$SUBNET\" --bridge \"$BRIDGE\" --host \"$HOST\""
    environment = {
      SCRIPT  = self.input.script
      RUN_ID  = self.input.run_id
      RUN_DIR = self.input.run_dir
      SUBNET  = self.input.subnet
      BRIDGE  = self.input.bridge
      HOST    = "${self.input.name}=${self.input.address}"
    }
  }
}
