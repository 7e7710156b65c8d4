package local

import (
	"context"
	"encoding/json"
	"fmt"
	"net/netip"
	"os/exec"
	"strings"
)

// route is one of this machine's IPv4 routes, as `ip -j route` lists it.
type route struct {
	Dst   string `json:"dst"`
	Dev   string `json:"dev"`
	Type  string `json:"type"`
	Table string `json:"table"`
}

// routeConflicts lists this machine's IPv4 routes, of every table (so its
// own addresses count too), that overlap subnet: hosts.sh refuses such a
// subnet when it makes the hosts, and Check refuses it before the run
// exists, so that a bad --subnet is bad input and nothing is made.
func routeConflicts(ctx context.Context, subnet netip.Prefix) ([]string, error) {
	out, err := exec.CommandContext(ctx, "ip", "-j", "-4", "route", "show", "table", "all").Output()
	if err != nil {
		return nil, fmt.Errorf("cannot list this machine's routes (ip -j -4 route show table all): %w", err)
	}
	var routes []route
	if err := json.Unmarshal(out, &routes); err != nil {
		return nil, fmt.Errorf("ip -j -4 route show table all: %w", err)
	}
	return overlapping(routes, subnet), nil
}

// overlapping are the routes that overlap subnet (two prefixes overlap
// when they agree on the shorter one's bits), the default route aside.
func overlapping(routes []route, subnet netip.Prefix) []string {
	var out []string
	for _, r := range routes {
		if r.Dst == "default" || r.Dst == "" {
			continue
		}
		dst := r.Dst
		if !strings.Contains(dst, "/") {
			dst += "/32"
		}
		p, err := netip.ParsePrefix(dst)
		if err != nil || !p.Addr().Is4() || !p.Overlaps(subnet) {
			continue
		}
		typ, table := r.Type, r.Table
		if typ == "" {
			typ = "unicast"
		}
		if table == "" {
			table = "main"
		}
		out = append(out, fmt.Sprintf("%s dev %s (%s, table %s)", r.Dst, r.Dev, typ, table))
	}
	return out
}
