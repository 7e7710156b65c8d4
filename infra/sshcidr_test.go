package infra

import (
	"errors"
	"strings"
	"testing"
)

func TestCheckSSHCIDR(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"203.0.113.7/32", ""},
		{"10.1.0.0/16", ""},
		{"", "not set"},
		{"203.0.113.7", "not an IPv4 CIDR"},
		{"2001:db8::/64", "not an IPv4 CIDR"},
		{"10.0.0.0/15", "a /15 is too wide for SSH; want /16 or longer"},
		{"0.0.0.0/0", "would open SSH to the whole internet"},
		{"203.0.113.7/24", "did you mean 203.0.113.0/24?"},
	} {
		err := CheckSSHCIDR(c.in)
		if (c.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), c.want)) {
			t.Errorf("CheckSSHCIDR(%q) = %v, want %q", c.in, err, c.want)
		}
	}
	if !errors.Is(CheckSSHCIDR(""), ErrSSHCIDRUnset) {
		t.Error("an empty ssh_cidr is not ErrSSHCIDRUnset")
	}
}

func TestZoneFallback(t *testing.T) {
	for v, want := range map[string]bool{"": false, "false": false, "true": true} {
		if got, err := ZoneFallback(v); err != nil || got != want {
			t.Errorf("ZoneFallback(%q) = %v, %v", v, got, err)
		}
	}
	if _, err := ZoneFallback("yes"); err == nil || !strings.Contains(err.Error(), `"yes": want true or false`) {
		t.Errorf("ZoneFallback(yes): %v", err)
	}
}
