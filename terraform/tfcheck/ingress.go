package tfcheck

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
)

// ingress is one rule that lets traffic in: where it is, who it admits
// (one expression per source) and which ports.
type ingress struct {
	rng     hcl.Range
	what    string // resource address, for findings
	sources []hclsyntax.Expression
	ports   ports
	// noSource is set for a GCP ingress firewall without source_ranges
	// (which GCP treats as 0.0.0.0/0).
	noSource bool
}

// ports is the set of ports a rule opens: all of them, or ranges; tcpOnly
// says the ranges are TCP's alone.
type ports struct {
	all     bool
	tcpOnly bool
	ranges  [][2]int
}

func (p ports) covers(port int) bool {
	if p.all {
		return true
	}
	for _, r := range p.ranges {
		if port >= r[0] && port <= r[1] {
			return true
		}
	}
	return false
}

// onlySSH reports whether p is TCP port 22 and nothing else.
func (p ports) onlySSH() bool {
	return !p.all && p.tcpOnly && len(p.ranges) == 1 && p.ranges[0] == [2]int{22, 22}
}

func (p *ports) add(o ports) {
	p.all = p.all || o.all
	p.tcpOnly = (len(p.ranges) == 0 || p.tcpOnly) && o.tcpOnly
	p.ranges = append(p.ranges, o.ranges...)
}

// ingressRules collects the module's ingress rules: AWS rule resources,
// inline ingress blocks and ingress security_group_rules, and GCP
// firewalls whose direction is not EGRESS.
func ingressRules(m *Module) []ingress {
	var out []ingress
	for _, b := range m.Resources("aws_vpc_security_group_ingress_rule") {
		out = append(out, awsIngress(b.Body, b.DefRange(), addr(b), "cidr_ipv4", "cidr_ipv6", "prefix_list_id", "referenced_security_group_id"))
	}
	for _, b := range m.Resources("aws_security_group_rule") {
		if t, _ := literalString(attrExpr(b.Body, "type")); t == "ingress" {
			out = append(out, awsIngress(b.Body, b.DefRange(), addr(b), "cidr_blocks", "ipv6_cidr_blocks", "source_security_group_id", "prefix_list_ids"))
		}
	}
	for _, b := range m.Resources("aws_security_group") {
		for _, in := range b.Body.Blocks {
			if in.Type == "ingress" {
				out = append(out, awsIngress(in.Body, in.DefRange(), addr(b)+".ingress", "cidr_blocks", "ipv6_cidr_blocks", "security_groups", "prefix_list_ids"))
			}
		}
	}
	for _, b := range m.Resources("google_compute_firewall") {
		if d, _ := literalString(attrExpr(b.Body, "direction")); d == "EGRESS" {
			continue
		}
		out = append(out, gcpIngress(b))
	}
	return out
}

// awsIngress reads an AWS rule: its sources from the given arguments and
// its ports from ip_protocol (or protocol), from_port and to_port.
func awsIngress(body *hclsyntax.Body, rng hcl.Range, what string, sourceArgs ...string) ingress {
	in := ingress{rng: rng, what: what}
	for _, name := range sourceArgs {
		in.sources = append(in.sources, elements(attrExpr(body, name))...)
	}
	proto := attrExpr(body, "ip_protocol")
	if proto == nil {
		proto = attrExpr(body, "protocol")
	}
	p, _ := literalString(proto)
	switch strings.ToLower(p) {
	case "tcp", "6", "udp", "17":
		from, ok1 := literalInt(attrExpr(body, "from_port"))
		to, ok2 := literalInt(attrExpr(body, "to_port"))
		if !ok1 || !ok2 {
			in.ports.all = true // unknown ports: assume the worst
			return in
		}
		in.ports = ports{tcpOnly: p == "tcp" || p == "6", ranges: [][2]int{{from, to}}}
	case "icmp", "1", "icmpv6", "58":
	default: // "-1", "all" or not a literal
		in.ports.all = true
	}
	return in
}

// gcpIngress reads a GCP firewall: its sources from source_ranges and its
// ports from the allow blocks (deny blocks open nothing).
func gcpIngress(b *hclsyntax.Block) ingress {
	in := ingress{rng: b.DefRange(), what: addr(b)}
	if e := attrExpr(b.Body, "source_ranges"); e != nil {
		in.sources = elements(e)
	} else {
		in.noSource = true
	}
	for _, allow := range b.Body.Blocks {
		if allow.Type != "allow" {
			continue
		}
		proto, _ := literalString(attrExpr(allow.Body, "protocol"))
		switch strings.ToLower(proto) {
		case "tcp", "udp", "sctp":
			in.ports.add(gcpPorts(attrExpr(allow.Body, "ports"), proto == "tcp"))
		case "icmp":
		default:
			in.ports.all = true
		}
	}
	return in
}

var portRange = regexp.MustCompile(`^([0-9]+)(?:-([0-9]+))?$`)

// gcpPorts reads an allow block's ports ("22", "7000-7100"); none means
// every port of the protocol.
func gcpPorts(e hclsyntax.Expression, tcp bool) ports {
	if e == nil {
		return ports{all: true}
	}
	p := ports{tcpOnly: tcp}
	for _, el := range elements(e) {
		s, ok := literalString(el)
		m := portRange.FindStringSubmatch(s)
		if !ok || m == nil {
			return ports{all: true}
		}
		from, _ := strconv.Atoi(m[1])
		to := from
		if m[2] != "" {
			to, _ = strconv.Atoi(m[2])
		}
		p.ranges = append(p.ranges, [2]int{from, to})
	}
	return p
}

// elements returns the items of a list constructor, or e itself.
func elements(e hclsyntax.Expression) []hclsyntax.Expression {
	if e == nil {
		return nil
	}
	if t, ok := e.(*hclsyntax.TupleConsExpr); ok {
		return t.Exprs
	}
	return []hclsyntax.Expression{e}
}

func literalInt(e hclsyntax.Expression) (int, bool) {
	v, ok := literal(e)
	if !ok || v.Type() != cty.Number {
		return 0, false
	}
	f, _ := v.AsBigFloat().Int64()
	return int(f), true
}

func attrExpr(body *hclsyntax.Body, name string) hclsyntax.Expression {
	if a := body.Attributes[name]; a != nil {
		return a.Expr
	}
	return nil
}

func addr(b *hclsyntax.Block) string { return strings.Join(b.Labels, ".") }
