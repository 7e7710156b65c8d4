package gcp

import (
	"errors"
	"fmt"
	"strings"

	"github.com/ybbench/ybbench/infra"
	"github.com/ybbench/ybbench/infra/cloudinit"
	"github.com/ybbench/ybbench/infra/cloudtag"
	"github.com/ybbench/ybbench/internal/exitcode"
)

// SubnetCIDR is the run's one subnetwork (the module's subnet_cidr):
// every port but 22 is open only to it.
const SubnetCIDR = "10.42.1.0/24"

// Plan lists the hosts Create would make and what it would make around
// them, without credentials or API calls: the zone and image are the
// settings' (the check may pick another zone with zone_fallback, and
// resolves the image family). A project or ssh_cidr not yet set shows as
// a placeholder; every other problem with spec is returned (exit 2).
func (p *Provider) Plan(spec infra.ClusterSpec) ([]infra.PlannedHost, string, error) {
	s, errs := readSettings(spec)
	var kept []error
	for _, err := range errs {
		if !errors.Is(err, errNotSet) {
			kept = append(kept, err)
		}
	}
	if len(kept) > 0 {
		return nil, "", exitcode.Wrap(exitcode.Config, fmt.Errorf("gcp provider: %w", errors.Join(kept...)))
	}
	if s.project == "" {
		s.project = "<project>"
	}
	if s.sshCIDR == "" {
		s.sshCIDR = "<your address>/32"
	}
	prefix := "ybb-<hash of the run id>"
	if names, err := cloudtag.NamesFor(spec.Name); err == nil {
		prefix = namePrefix(names)
	}
	types := strings.Join(s.runTypes(), " and ")
	zone, zoneLine := s.zone, "zone "+s.zone
	switch {
	case zone == "":
		zone = "<zone>"
		zoneLine = "zone: the first zone of " + s.region + " that offers " + types + " (no zone set)"
	case s.zoneFallback:
		zoneLine += ", or, if it does not offer " + types + ", the first zone of " + s.region + " that does (zone_fallback)"
	}

	var hosts []infra.PlannedHost
	for _, h := range s.hosts() {
		where := h.Type
		if h.LocalSSDs > 0 {
			where += fmt.Sprintf(", %d × %d GB local SSD (NVMe)", h.LocalSSDs, LocalSSDGB)
		}
		where += ", zone " + zone + ", image " + s.image
		hosts = append(hosts, infra.PlannedHost{Name: h.Name, Roles: []infra.Role{infra.Role(h.Role)}, Where: where})
	}

	lines := []string{
		fmt.Sprintf("terraform apply of terraform/gcp (provider hashicorp/google %s) in project %s, region %s:", GoogleProviderVersion, s.project, s.region),
		zoneLine,
		fmt.Sprintf("network %s-net (custom mode), subnetwork %s-subnet %s", prefix, prefix, SubnetCIDR),
		fmt.Sprintf("firewall %s-ssh: TCP 22 from %s only", prefix, s.sshCIDR),
		fmt.Sprintf("firewall %s-internal: every port (YugabyteDB 5433, 9042, 7000, 7100, 9000, 9100; PostgreSQL, Cassandra) from %s only; egress by GCP's implied rule", prefix, SubnetCIDR),
		fmt.Sprintf("%d instances %s-<host> with an ephemeral public address, %d GB pd-balanced boot disk", s.db+s.clients, prefix, BootDiskGB),
		fmt.Sprintf("login %s with the run's key (ssh-keys metadata, OS Login off, project keys blocked); host keys made by ybbench, pinned before first contact", cloudinit.LoginUser),
		fmt.Sprintf("labels %s, %s, %s, %s, %s, %s; the network, subnetwork and firewalls say the same in their descriptions",
			cloudtag.LabelRunID, cloudtag.LabelRunHash, cloudtag.LabelOwner, cloudtag.LabelCreated, cloudtag.LabelExpires, cloudtag.LabelManaged),
		fmt.Sprintf("lifetime %v: GCE deletes each instance %v after it starts (max_run_duration, DELETE) and each powers itself off at the expiry; `ybbench janitor --provider gcp --project %s` removes what is left after it", s.lifetime, s.lifetime, s.project),
	}
	return hosts, strings.Join(lines, "\n"), nil
}

// namePrefix is the prefix of every resource name of a run
// ("ybb-<run hash>"): the module's name_prefix, from which it names the
// network, subnetwork, firewalls and instances as cloudtag.GCPName does.
func namePrefix(n cloudtag.GCPNames) string { return strings.TrimSuffix(n.Network, "-net") }
