package local

import (
	"context"
	"errors"

	"github.com/ybbench/ybbench/infra"
	"github.com/ybbench/ybbench/infra/terraform"
	"github.com/ybbench/ybbench/internal/exitcode"
)

var _ infra.Checker = (*Provider)(nil)

// Check says, before a run is created, whether Create would accept spec:
// its options (only the subnet is one), its subnet (IPv4, a prefix of 16 to 30 bits, no host bits, a usable
// range, room for the hosts) and the Terraform it runs (found, and
// terraform.MinVersion or later). Every problem is returned at once (exit
// 2). Whether the subnet is clear of this machine's routes is left to
// hosts.sh at creation: it is true only of a moment, and a run's own
// bridge is already on its subnet when up is resumed.
func (p *Provider) Check(ctx context.Context, spec infra.ClusterSpec) error {
	subnet, errs := options(spec)
	if _, err := parseSubnet(subnet, spec.DBHosts+spec.ClientHosts); err != nil {
		errs = append(errs, &infra.SettingError{Setting: OptionSubnet, Err: err})
	}
	if _, err := terraform.CheckBinary(ctx, p.terraformBin); err != nil {
		if ctx.Err() != nil {
			return err
		}
		errs = append(errs, err)
	}
	return exitcode.Wrap(exitcode.Config, errors.Join(errs...))
}
