locals {
  # The five keys the janitor and the other layers of teardown rely on
  # (values computed by ybbench: created and expires in RFC 3339 UTC).
  tags = {
    "ybbench:run-id"  = var.run_id
    "ybbench:owner"   = var.owner
    "ybbench:created" = var.created
    "ybbench:expires" = var.expires
    "ybbench:managed" = "true"
  }

  name  = "ybbench-${var.run_id}"
  hosts = { for h in var.hosts : h.name => h }

  # gp3 data volumes get the mapping names sdf, sdg, …; the hosts find them
  # by their NVMe model and serial, never by these names (user data).
  device_letters = ["f", "g", "h", "i", "j", "k", "l", "m"]
}

# A network of the run's own: nothing else shares its security group, and
# deleting it removes everything the run made.
resource "aws_vpc" "run" {
  cidr_block           = var.vpc_cidr
  enable_dns_support   = true
  enable_dns_hostnames = true
  tags                 = { Name = local.name }
}

# The one subnet, pinned to the zone: the database nodes and the client
# share an availability zone.
resource "aws_subnet" "run" {
  vpc_id                  = aws_vpc.run.id
  cidr_block              = var.subnet_cidr
  availability_zone       = var.zone
  map_public_ip_on_launch = true
  tags                    = { Name = local.name }

  lifecycle {
    # Not a validation of var.zone: Terraform before 1.9 refuses one that
    # refers to another variable.
    precondition {
      condition     = startswith(var.zone, var.region)
      error_message = "zone: ${var.zone} is not a zone of region ${var.region}."
    }
  }
}

resource "aws_internet_gateway" "run" {
  vpc_id = aws_vpc.run.id
  tags   = { Name = local.name }
}

resource "aws_route_table" "run" {
  vpc_id = aws_vpc.run.id
  tags   = { Name = local.name }
}

# The default route, as its own resource (not an inline route block: the
# two styles must not be mixed on one table).
resource "aws_route" "internet" {
  route_table_id         = aws_route_table.run.id
  destination_cidr_block = "0.0.0.0/0"
  gateway_id             = aws_internet_gateway.run.id
}

resource "aws_route_table_association" "run" {
  subnet_id      = aws_subnet.run.id
  route_table_id = aws_route_table.run.id
}

# The group's rules are separate resources, one source each; none is
# inline.
resource "aws_security_group" "run" {
  name                   = local.name
  description            = "ybbench run ${var.run_id}: SSH from the operator, everything else only within the subnet"
  vpc_id                 = aws_vpc.run.id
  revoke_rules_on_delete = true
  tags                   = { Name = local.name }
}

# SSH, the orchestrator's only way in: database ports are probed through
# the SSH connection, never directly.
resource "aws_vpc_security_group_ingress_rule" "ssh" {
  security_group_id = aws_security_group.run.id
  description       = "SSH from the operator"
  ip_protocol       = "tcp"
  from_port         = 22
  to_port           = 22
  cidr_ipv4         = var.ssh_cidr
}

# Everything else (YugabyteDB's RPC, admin and client ports, PostgreSQL,
# Cassandra) between the run's hosts only.
resource "aws_vpc_security_group_ingress_rule" "subnet" {
  security_group_id = aws_security_group.run.id
  description       = "All traffic within the run's subnet"
  ip_protocol       = "-1"
  cidr_ipv4         = aws_subnet.run.cidr_block
}

# Terraform removes the allow-all egress rule AWS adds to a new group;
# without this the hosts cannot download packages or the database.
resource "aws_vpc_security_group_egress_rule" "all" {
  security_group_id = aws_security_group.run.id
  description       = "All outbound traffic"
  ip_protocol       = "-1"
  cidr_ipv4         = "0.0.0.0/0"
}

resource "aws_key_pair" "run" {
  key_name   = local.name
  public_key = var.ssh_public_key
}

resource "aws_placement_group" "cluster" {
  count    = var.placement_group ? 1 : 0
  name     = local.name
  strategy = "cluster"
}

resource "aws_instance" "host" {
  for_each = local.hosts

  ami                         = var.ami
  instance_type               = each.value.instance_type
  subnet_id                   = aws_subnet.run.id
  vpc_security_group_ids      = [aws_security_group.run.id]
  key_name                    = aws_key_pair.run.key_name
  placement_group             = var.placement_group ? aws_placement_group.cluster[0].name : null
  associate_public_ip_address = true

  # The hosts' own dead-man's switch: at the expiry time a systemd timer
  # (user data) powers the machine off, and an OS-initiated shutdown then
  # terminates the instance, deleting its volumes with it.
  instance_initiated_shutdown_behavior = "terminate"

  # A change of user data replaces the host instead of stopping it: a stop
  # would erase instance-store disks, and the host keys it pins would no
  # longer match the running machine. Sensitive: it holds the host's
  # private SSH key, and Terraform would otherwise print it in the plan
  # that goes to the run's log.
  user_data                   = sensitive(each.value.user_data)
  user_data_replace_on_change = true

  # IMDSv2 only, and not reachable from containers on the host.
  metadata_options {
    http_endpoint               = "enabled"
    http_tokens                 = "required"
    http_put_response_hop_limit = 1
  }

  root_block_device {
    volume_type           = "gp3"
    volume_size           = var.root_disk_gb
    encrypted             = true
    delete_on_termination = true
  }

  # Data volumes die with the instance: whichever layer of teardown ends
  # the host, no volume is left behind.
  dynamic "ebs_block_device" {
    for_each = range(each.value.data_disk_count)
    content {
      device_name           = "/dev/sd${local.device_letters[ebs_block_device.value]}"
      volume_type           = "gp3"
      volume_size           = var.data_disk_gb
      encrypted             = true
      delete_on_termination = true
    }
  }

  tags = {
    Name           = "${local.name}-${each.key}"
    "ybbench:role" = each.value.role
  }

  # Instances get their public address only once the gateway is attached
  # and the subnet routes to it.
  depends_on = [aws_internet_gateway.run, aws_route.internet, aws_route_table_association.run]
}
