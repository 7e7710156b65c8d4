package infra

import (
	"errors"
	"fmt"
	"net/netip"
)

// MinSSHPrefix is the widest network a cloud run's SSH port may accept
// (ssh_cidr): a /16. The cloud modules refuse a wider one too.
const MinSSHPrefix = 16

// ErrSSHCIDRUnset is CheckSSHCIDR's answer for an empty value.
var ErrSSHCIDRUnset = errors.New("not set: the operator's address as a CIDR (203.0.113.7/32), the only source SSH accepts")

// CheckSSHCIDR accepts what a cloud run's ssh_cidr may be: an IPv4 CIDR
// without host bits, of MinSSHPrefix or longer (so never 0.0.0.0/0). The
// settings, the cloud providers and their modules all apply it.
func CheckSSHCIDR(v string) error {
	if v == "" {
		return ErrSSHCIDRUnset
	}
	pfx, err := netip.ParsePrefix(v)
	switch {
	case err != nil || !pfx.Addr().Is4():
		return fmt.Errorf("%q is not an IPv4 CIDR (such as 203.0.113.7/32)", v)
	case pfx.Bits() == 0:
		return fmt.Errorf("%s would open SSH to the whole internet: give your own address (a /32) or network", v)
	case pfx.Bits() < MinSSHPrefix:
		return fmt.Errorf("%s: a /%d is too wide for SSH; want /%d or longer (your own address is a /32)", v, pfx.Bits(), MinSSHPrefix)
	case pfx.Masked() != pfx:
		return fmt.Errorf("%s has host bits set: did you mean %s?", v, pfx.Masked())
	}
	return nil
}
