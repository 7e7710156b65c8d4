package tfcheck

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ybbench/ybbench/internal/testenv"
)

// moduleDir is a shipped module's directory.
func moduleDir(name string) string { return filepath.Join(testenv.RepoRoot(), "terraform", name) }

// The shipped modules follow every rule.
func TestPolicyModules(t *testing.T) {
	for dir, provider := range map[string]string{"aws": "aws", "gcp": "google"} {
		m, err := ParseModule(moduleDir(dir))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range CheckPolicy(m, provider) {
			t.Errorf("terraform/%s/%s", dir, f)
		}
	}
}

// breakage is a fixture module: a shipped module with one edit that
// breaks one rule, and the findings the check must give for it. Made from
// the shipped module (old must occur in it exactly once), so that a
// fixture cannot drift from what it stands for.
type breakage struct {
	name, dir, file, old, new string
	want                      []string
}

var breakages = []breakage{
	{"aws internal rule open to the world", "aws", "main.tf",
		"cidr_ipv4         = aws_subnet.run.cidr_block", `cidr_ipv4         = "0.0.0.0/0"`,
		[]string{`main.tf: [open-ingress] aws_vpc_security_group_ingress_rule.subnet admits 0.0.0.0/0`}},
	{"aws ssh open to all of IPv6", "aws", "main.tf",
		"cidr_ipv4         = var.ssh_cidr", `cidr_ipv6         = "::/0"`,
		[]string{`main.tf: [open-ingress] aws_vpc_security_group_ingress_rule.ssh admits ::/0`}},
	{"aws operator's CIDR reaches more than ssh", "aws", "main.tf",
		"to_port           = 22", "to_port           = 23",
		[]string{`main.tf: [ssh-source] aws_vpc_security_group_ingress_rule.ssh opens more than TCP port 22 to var.ssh_cidr`}},
	{"aws ssh from the whole VPC variable", "aws", "main.tf",
		"cidr_ipv4         = var.ssh_cidr", "cidr_ipv4         = var.vpc_cidr",
		[]string{`main.tf: [ssh-source] aws_vpc_security_group_ingress_rule.ssh opens port 22 to var.vpc_cidr; only var.ssh_cidr (or the run's subnet) may reach it`}},
	{"aws YSQL opened beyond the subnet", "aws", "main.tf",
		`resource "aws_key_pair" "run" {`, `resource "aws_vpc_security_group_ingress_rule" "ysql" {
  security_group_id = aws_security_group.run.id
  ip_protocol       = "tcp"
  from_port         = 5433
  to_port           = 5433
  cidr_ipv4         = var.vpc_cidr
}

resource "aws_key_pair" "run" {`,
		[]string{`main.tf: [database-ports] aws_vpc_security_group_ingress_rule.ysql opens port(s) 5433 to var.vpc_cidr; only the run's subnet may reach them`}},
	{"aws tags without expiry", "aws", "main.tf",
		`    "ybbench:expires" = var.expires` + "\n", "",
		[]string{`versions.tf: [run-tags] default_tags lacks ybbench:expires`}},
	{"aws tags not managed", "aws", "main.tf",
		`"ybbench:managed" = "true"`, `"ybbench:managed" = "false"`,
		[]string{`main.tf: [run-tags] default_tags: ybbench:managed must be "true"`}},
	{"aws instance stops instead of terminating", "aws", "main.tf",
		`instance_initiated_shutdown_behavior = "terminate"`, `instance_initiated_shutdown_behavior = "stop"`,
		[]string{`main.tf: [self-destruct] aws_instance.host: instance_initiated_shutdown_behavior must be "terminate"`}},
	{"aws user data changed in place", "aws", "main.tf",
		"user_data_replace_on_change = true", "user_data_replace_on_change = false",
		[]string{`main.tf: [self-destruct] aws_instance.host: user_data_replace_on_change must be true`}},
	{"aws IMDSv1 allowed", "aws", "main.tf",
		`http_tokens                 = "required"`, `http_tokens                 = "optional"`,
		[]string{`main.tf: [imdsv2] aws_instance.host.metadata_options: http_tokens must be "required"`}},
	{"aws data volumes outlive the instance", "aws", "main.tf",
		"encrypted             = true\n      delete_on_termination = true", "encrypted             = true\n      delete_on_termination = false",
		[]string{`main.tf: [data-disks] aws_instance.host.ebs_block_device: delete_on_termination must be true`}},
	{"aws provider version a range", "aws", "versions.tf",
		`version = "6.25.0"`, `version = ">= 6.25.0"`,
		[]string{`versions.tf: [provider-version] required_providers aws version is ">= 6.25.0", want exactly "6.25.0"`}},
	{"aws hosts output without provider_id", "aws", "outputs.tf",
		"      provider_id   = aws_instance.host[h.name].id\n", "",
		[]string{`outputs.tf: [hosts-output] output "hosts" has keys instance_type, name, private_ip, public_ip, role, zone, want instance_type, name, private_ip, provider_id, public_ip, role, zone`}},
	{"aws zone validated against another variable", "aws", "variables.tf",
		`condition     = can(regex("^[a-z]{2}(-[a-z]+)+-[0-9][a-z]$", var.zone))`, `condition     = startswith(var.zone, var.region)`,
		[]string{`variables.tf: [validation-scope] variable "zone": its validation refers to var.region (Terraform before 1.9 refuses that; use a precondition)`}},
	{"gcp internal firewall without sources", "gcp", "main.tf",
		"  source_ranges = [google_compute_subnetwork.run.ip_cidr_range]\n", "",
		[]string{`main.tf: [source-ranges] google_compute_firewall.internal has no source_ranges: GCP opens it to 0.0.0.0/0`}},
	{"gcp ssh open to the world", "gcp", "main.tf",
		"source_ranges = [var.ssh_cidr]", `source_ranges = ["0.0.0.0/0"]`,
		[]string{`main.tf: [open-ingress] google_compute_firewall.ssh admits 0.0.0.0/0`}},
	{"gcp YCQL through the ssh rule", "gcp", "main.tf",
		`ports    = ["22"]`, `ports    = ["22", "9042"]`,
		[]string{
			`main.tf: [ssh-source] google_compute_firewall.ssh opens more than TCP port 22 to var.ssh_cidr`,
			`main.tf: [database-ports] google_compute_firewall.ssh opens port(s) 9042 to var.ssh_cidr; only the run's subnet may reach them`,
		}},
	{"gcp labels without owner", "gcp", "main.tf",
		`    "ybbench-owner"    = var.owner` + "\n", "",
		[]string{
			`main.tf: [run-tags] google_compute_instance.host.boot_disk.initialize_params.labels lacks ybbench-owner`,
			`versions.tf: [run-tags] default_labels lacks ybbench-owner`,
		}},
	{"gcp boot disk without labels", "gcp", "main.tf",
		"      labels = local.labels\n", "",
		[]string{`main.tf: [run-tags] google_compute_instance.host.boot_disk.initialize_params: no labels (the default labels do not reach the disk)`}},
	{"gcp network description without the run", "gcp", "main.tf",
		"  description             = local.description\n", "  description             = \"ybbench\"\n",
		[]string{`main.tf: [run-tags] google_compute_network.run: description must carry run-id= (it has no labels)`}},
	{"gcp instance stops instead of being deleted", "gcp", "main.tf",
		`instance_termination_action = "DELETE"`, `instance_termination_action = "STOP"`,
		[]string{`main.tf: [self-destruct] google_compute_instance.host.scheduling: instance_termination_action must be "DELETE"`}},
	{"gcp instance without a run duration", "gcp", "main.tf",
		"    max_run_duration {\n      seconds = var.max_run_seconds\n    }\n", "",
		[]string{`main.tf: [self-destruct] google_compute_instance.host.scheduling: no max_run_duration { seconds = … }`}},
	{"gcp OS Login on", "gcp", "main.tf",
		`"enable-oslogin"         = "FALSE"`, `"enable-oslogin"         = "TRUE"`,
		[]string{`main.tf: [login] google_compute_instance.host: metadata enable-oslogin must be "FALSE" (OS Login ignores metadata keys)`}},
	{"gcp local SSDs on SCSI", "gcp", "main.tf",
		`interface = "NVME"`, `interface = "SCSI"`,
		[]string{`main.tf: [data-disks] google_compute_instance.host.scratch_disk: interface must be "NVME"`}},
	{"gcp provider version unpinned", "gcp", "versions.tf",
		`version = "6.50.0"`, `version = "~> 6.50"`,
		[]string{`versions.tf: [provider-version] required_providers google version is "~> 6.50", want exactly "6.50.0"`}},
}

// Each fixture breaks its rule, and the check reports exactly that.
func TestPolicyFixturesFail(t *testing.T) {
	rules := map[string]bool{}
	for _, b := range breakages {
		t.Run(b.name, func(t *testing.T) {
			dir := copyModule(t, moduleDir(b.dir))
			path := filepath.Join(dir, b.file)
			src, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if n := strings.Count(string(src), b.old); n != 1 {
				t.Fatalf("%q occurs %d times in terraform/%s/%s, want once", b.old, n, b.dir, b.file)
			}
			if err := os.WriteFile(path, []byte(strings.Replace(string(src), b.old, b.new, 1)), 0o644); err != nil {
				t.Fatal(err)
			}
			m, err := ParseModule(dir)
			if err != nil {
				t.Fatal(err)
			}
			provider := map[string]string{"aws": "aws", "gcp": "google"}[b.dir]
			var got []string
			// File and message, not the line: an unrelated edit of the
			// module must not break the fixtures.
			for _, f := range CheckPolicy(m, provider) {
				got = append(got, f.File+": "+f.Msg)
			}
			if strings.Join(got, "\n") != strings.Join(b.want, "\n") {
				t.Errorf("findings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(b.want, "\n"))
			}
		})
		for _, w := range b.want {
			if i, j := strings.Index(w, "["), strings.Index(w, "]"); i >= 0 && j > i {
				rules[w[i+1:j]] = true
			}
		}
	}
	// Every rule has at least one fixture that breaks it.
	for _, r := range []string{"open-ingress", "ssh-source", "database-ports", "source-ranges", "run-tags", "self-destruct", "data-disks", "imdsv2", "login", "provider-version", "hosts-output", "validation-scope"} {
		if !rules[r] {
			t.Errorf("no fixture breaks rule %s", r)
		}
	}
}

// copyModule copies a module's .tf files to a directory of the test's own.
func copyModule(t *testing.T, src string) string {
	t.Helper()
	dst := t.TempDir()
	paths, err := filepath.Glob(filepath.Join(src, "*.tf"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no .tf files in %s: %v", src, err)
	}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst, filepath.Base(p)), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dst
}
