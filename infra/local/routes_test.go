package local

import (
	"net/netip"
	"slices"
	"testing"
)

// A subnet overlaps a route when they agree on the shorter prefix's bits:
// a wider route, a narrower one inside, a host address (no prefix) inside;
// the default route and routes apart do not count.
func TestOverlappingRoutes(t *testing.T) {
	routes := []route{
		{Dst: "default", Dev: "eth0"},
		{Dst: "192.0.2.0/24", Dev: "eth0"},
		{Dst: "10.0.0.0/8", Dev: "tun0", Type: "unicast"},
		{Dst: "10.213.5.7", Dev: "lo", Type: "local", Table: "local"},
		{Dst: "172.16.0.0/12", Dev: "br0"},
		{Dst: "10.213.6.0/25", Dev: "ybb1"},
	}
	for _, c := range []struct {
		subnet string
		want   []string
	}{
		{"10.213.5.0/24", []string{"10.0.0.0/8 dev tun0 (unicast, table main)", "10.213.5.7 dev lo (local, table local)"}},
		{"10.213.6.128/25", []string{"10.0.0.0/8 dev tun0 (unicast, table main)"}},
		{"192.0.0.0/16", []string{"192.0.2.0/24 dev eth0 (unicast, table main)"}},
		{"192.168.7.0/24", nil},
	} {
		got := overlapping(routes, netip.MustParsePrefix(c.subnet))
		if !slices.Equal(got, c.want) {
			t.Errorf("%s: %q, want %q", c.subnet, got, c.want)
		}
	}
}
