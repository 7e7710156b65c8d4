package local

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/ybbench/ybbench/infra"
	"github.com/ybbench/ybbench/infra/terraform"
	"github.com/ybbench/ybbench/internal/exitcode"
)

var _ infra.Checker = (*Provider)(nil)

// Check says, before a run is created, whether Create would accept spec:
// its options (only the subnet is one), its subnet (IPv4, a prefix of 16 to 30 bits, no host bits, a usable
// range, room for the hosts) and the Terraform it runs (found, and
// terraform.MinVersion or later). Every problem is returned at once (exit
// 2). The subnet must be clear of this machine's routes now, so that a
// bad --subnet is refused before the run exists; hosts.sh checks again at
// creation, since that is true only of a moment (and a resumed up's own
// bridge is on its subnet by then, which it allows).
func (p *Provider) Check(ctx context.Context, spec infra.ClusterSpec) error {
	subnet, errs := options(spec)
	if p, err := parseSubnet(subnet, spec.DBHosts+spec.ClientHosts); err != nil {
		errs = append(errs, &infra.SettingError{Setting: OptionSubnet, Err: err})
	} else if conflicts, err := routeConflicts(ctx, p); err != nil {
		errs = append(errs, err)
	} else if len(conflicts) > 0 {
		errs = append(errs, &infra.SettingError{Setting: OptionSubnet, Err: fmt.Errorf("subnet %s overlaps routes of this machine: %s; choose another subnet (e.g. --subnet 10.213.<n>.0/24)",
			subnet, strings.Join(conflicts, "; "))})
	}
	if _, err := terraform.CheckBinary(ctx, p.terraformBin); err != nil {
		if ctx.Err() != nil {
			return err
		}
		errs = append(errs, err)
	}
	return exitcode.Wrap(exitcode.Config, errors.Join(errs...))
}
