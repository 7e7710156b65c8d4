package tfcheck

import (
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
)

// Pinned are the exact provider releases the cloud modules must require:
// the ones their schemas were checked against.
var Pinned = map[string]string{"aws": "6.25.0", "google": "6.50.0"}

// DatabasePorts are the ports only the run's subnet may reach: YugabyteDB's
// client, RPC, admin and metrics ports (YEDIS included), PostgreSQL's, and
// Cassandra's native, inter-node, JMX and Thrift ports.
var DatabasePorts = []int{5432, 5433, 6379, 7000, 7001, 7100, 7199, 9000, 9042, 9100, 9160, 12000, 13000}

// RunTags are the keys every resource of a run carries (AWS tags), and
// RunLabels the same in GCP's label syntax.
var (
	RunTags   = []string{"ybbench:run-id", "ybbench:owner", "ybbench:created", "ybbench:expires", "ybbench:managed"}
	RunLabels = []string{"ybbench-run-id", "ybbench-owner", "ybbench-created", "ybbench-expires", "ybbench-managed"}
)

// HostsOutputKeys are the keys of each element of a cloud module's hosts
// output (infra/terraform/hosts.go), the optional ones included.
var HostsOutputKeys = []string{"name", "role", "public_ip", "private_ip", "zone", "provider_id", "instance_type"}

// subnetSource matches a reference to the run subnet's CIDR.
var subnetSource = regexp.MustCompile(`^(aws_subnet\.[A-Za-z0-9_-]+\.cidr_block|google_compute_subnetwork\.[A-Za-z0-9_-]+\.ip_cidr_range)$`)

// CheckPolicy checks a cloud module (provider "aws" or "google") against
// the project's rules. Each finding's message starts with the rule's name
// in brackets: open-ingress, ssh-source, database-ports, source-ranges,
// run-tags, self-destruct, data-disks, imdsv2, login, provider-version,
// hosts-output, validation-scope.
func CheckPolicy(m *Module, provider string) []Finding {
	p := &policy{m: m}
	p.validationScope()
	p.network()
	p.providerVersion(provider)
	p.hostsOutput()
	switch provider {
	case "aws":
		p.awsTags()
		p.awsInstances()
	case "google":
		p.gcpLabels()
		p.gcpInstances()
	default:
		p.add(hcl.Range{}, "provider-version", "no policy for provider %q", provider)
	}
	sortFindings(p.out)
	return p.out
}

type policy struct {
	m   *Module
	out []Finding
}

func (p *policy) add(rng hcl.Range, rule, format string, args ...any) {
	p.out = append(p.out, finding(rng, "[%s] %s", rule, fmt.Sprintf(format, args...)))
}

// network: nothing is open to the world; SSH comes only from the
// operator's CIDR and the operator's CIDR reaches only SSH; database and
// RPC ports only from the subnet; every GCP firewall names its sources.
func (p *policy) network() {
	for _, in := range ingressRules(p.m) {
		if in.noSource {
			p.add(in.rng, "source-ranges", "%s has no source_ranges: GCP opens it to 0.0.0.0/0", in.what)
		}
		for _, src := range in.sources {
			p.source(in, src)
		}
	}
}

func (p *policy) source(in ingress, src hclsyntax.Expression) {
	ref := reference(src)
	if s, ok := literalString(src); ok && (strings.Contains(s, "0.0.0.0/0") || strings.Contains(s, "::/0")) {
		p.add(src.Range(), "open-ingress", "%s admits %s", in.what, s)
		return
	}
	subnet := subnetSource.MatchString(ref)
	operator := ref == "var.ssh_cidr"
	if operator && !in.ports.onlySSH() {
		p.add(src.Range(), "ssh-source", "%s opens more than TCP port 22 to var.ssh_cidr", in.what)
	}
	if in.ports.covers(22) && !operator && !subnet {
		p.add(src.Range(), "ssh-source", "%s opens port 22 to %s; only var.ssh_cidr (or the run's subnet) may reach it", in.what, describe(src))
	}
	if subnet {
		return
	}
	var open []string
	for _, port := range DatabasePorts {
		if in.ports.covers(port) {
			open = append(open, fmt.Sprint(port))
		}
	}
	if len(open) > 0 {
		p.add(src.Range(), "database-ports", "%s opens port(s) %s to %s; only the run's subnet may reach them", in.what, strings.Join(open, ", "), describe(src))
	}
}

// describe renders a source expression for a finding.
func describe(e hclsyntax.Expression) string {
	if ref := reference(e); ref != "" {
		return ref
	}
	if s, ok := literalString(e); ok {
		return fmt.Sprintf("%q", s)
	}
	return "an expression"
}

// providerVersion: the provider is required at exactly the release its
// schema was checked against.
func (p *policy) providerVersion(provider string) {
	want := Pinned[provider]
	got := PinnedVersion(p.m, provider)
	if got != want {
		p.add(p.firstRange("terraform"), "provider-version", "required_providers %s version is %q, want exactly %q", provider, got, want)
	}
}

func (p *policy) firstRange(typ string) hcl.Range {
	if bs := p.m.Blocks(typ); len(bs) > 0 {
		return bs[0].DefRange()
	}
	if len(p.m.Files) > 0 {
		return hcl.Range{Filename: p.m.Files[0].Name, Start: hcl.Pos{Line: 1}}
	}
	return hcl.Range{}
}

// hostsOutput: output "hosts" is a list of objects with exactly the keys
// of the contract.
func (p *policy) hostsOutput() {
	var out *hclsyntax.Block
	for _, b := range p.m.Blocks("output") {
		if len(b.Labels) == 1 && b.Labels[0] == "hosts" {
			out = b
		}
	}
	if out == nil {
		p.add(p.firstRange("output"), "hosts-output", "no output \"hosts\"")
		return
	}
	value := attrExpr(out.Body, "value")
	var obj hclsyntax.Expression
	switch v := value.(type) {
	case *hclsyntax.ForExpr:
		obj = v.ValExpr
	case *hclsyntax.TupleConsExpr:
		if len(v.Exprs) > 0 {
			obj = v.Exprs[0]
		}
	}
	keys, ok := objectKeys(obj)
	if !ok {
		p.add(out.DefRange(), "hosts-output", "output \"hosts\" is not a list of objects with literal keys")
		return
	}
	got := make([]string, 0, len(keys))
	for k := range keys {
		got = append(got, k)
	}
	sort.Strings(got)
	want := append([]string(nil), HostsOutputKeys...)
	sort.Strings(want)
	if strings.Join(got, ",") != strings.Join(want, ",") {
		p.add(out.DefRange(), "hosts-output", "output \"hosts\" has keys %s, want %s", strings.Join(got, ", "), strings.Join(want, ", "))
	}
}

// providerBlock returns the module's provider block for name.
func (p *policy) providerBlock(name string) *hclsyntax.Block {
	for _, b := range p.m.Blocks("provider") {
		if len(b.Labels) == 1 && b.Labels[0] == name {
			return b
		}
	}
	return nil
}

// keysOf checks that e (through a local) is an object with every key in
// want, and that the managed key says "true".
func (p *policy) keysOf(rng hcl.Range, rule, what string, e hclsyntax.Expression, want []string, managed string) {
	keys, ok := objectKeys(p.m.resolveLocal(e))
	if !ok {
		p.add(rng, rule, "%s is not an object with literal keys", what)
		return
	}
	var missing []string
	for _, k := range want {
		if keys[k] == nil {
			missing = append(missing, k)
		}
	}
	if len(missing) > 0 {
		p.add(rng, rule, "%s lacks %s", what, strings.Join(missing, ", "))
		return
	}
	if v, _ := literalString(keys[managed]); v != "true" {
		p.add(keys[managed].Range(), rule, "%s: %s must be \"true\"", what, managed)
	}
}

// awsTags: the provider's default_tags carry the five run tags, so every
// taggable resource has them.
func (p *policy) awsTags() {
	b := p.providerBlock("aws")
	if b == nil {
		p.add(p.firstRange("terraform"), "run-tags", "no provider \"aws\" block with default_tags")
		return
	}
	for _, dt := range b.Body.Blocks {
		if dt.Type == "default_tags" {
			if e := attrExpr(dt.Body, "tags"); e != nil {
				p.keysOf(e.Range(), "run-tags", "default_tags", e, RunTags, "ybbench:managed")
				return
			}
		}
	}
	p.add(b.DefRange(), "run-tags", "provider \"aws\" has no default_tags { tags = … }")
}

// gcpLabels: the provider's default_labels carry the five run labels; the
// resources without labels (networks, subnetworks, firewalls) say run id,
// expiry and managed in their description.
func (p *policy) gcpLabels() {
	b := p.providerBlock("google")
	if b == nil {
		p.add(p.firstRange("terraform"), "run-tags", "no provider \"google\" block with default_labels")
	} else if e := attrExpr(b.Body, "default_labels"); e == nil {
		p.add(b.DefRange(), "run-tags", "provider \"google\" has no default_labels")
	} else {
		p.keysOf(e.Range(), "run-tags", "default_labels", e, RunLabels, "ybbench-managed")
	}
	for _, typ := range []string{"google_compute_network", "google_compute_subnetwork", "google_compute_firewall"} {
		for _, r := range p.m.Resources(typ) {
			d := attrExpr(r.Body, "description")
			text := ""
			if d != nil {
				text = templateText(p.m.resolveLocal(d))
			}
			for _, want := range []string{"run-id=", "expires=", "managed=true"} {
				if !strings.Contains(text, want) {
					p.add(r.DefRange(), "run-tags", "%s: description must carry %s (it has no labels)", addr(r), want)
					break
				}
			}
		}
	}
}

// want checks that body's argument name is the literal want.
func (p *policy) want(rule, what string, body *hclsyntax.Body, rng hcl.Range, name string, want any) {
	e := attrExpr(body, name)
	var got any
	var ok bool
	switch want.(type) {
	case string:
		got, ok = literalString(e)
	case bool:
		got, ok = literalBool(e)
	}
	if !ok || got != want {
		if e != nil {
			rng = e.Range()
		}
		p.add(rng, rule, "%s: %s must be %#v", what, name, want)
	}
}

// nested returns the bodies of body's blocks of one type, dynamic ones'
// content included.
func nested(body *hclsyntax.Body, typ string) []*hclsyntax.Block {
	var out []*hclsyntax.Block
	for _, b := range body.Blocks {
		if b.Type == typ {
			out = append(out, b)
		}
		if b.Type == "dynamic" && len(b.Labels) == 1 && b.Labels[0] == typ {
			for _, c := range b.Body.Blocks {
				if c.Type == "content" {
					out = append(out, c)
				}
			}
		}
	}
	return out
}

// awsInstances: every instance terminates on an OS shutdown (the expiry
// timer's power-off), is replaced when its user data changes, takes its
// user data from a variable, requires IMDSv2, logs in with the run's key
// pair, and has gp3 volumes that die with it.
func (p *policy) awsInstances() {
	for _, r := range p.m.Resources("aws_instance") {
		what := addr(r)
		p.want("self-destruct", what, r.Body, r.DefRange(), "instance_initiated_shutdown_behavior", "terminate")
		p.want("self-destruct", what, r.Body, r.DefRange(), "user_data_replace_on_change", true)
		if e := attrExpr(r.Body, "user_data"); e == nil || len(e.Variables()) == 0 {
			p.add(r.DefRange(), "self-destruct", "%s: user_data must come from a variable (it carries the expiry timer)", what)
		}
		if e := attrExpr(r.Body, "key_name"); e == nil {
			p.add(r.DefRange(), "login", "%s: no key_name", what)
		}
		md := nested(r.Body, "metadata_options")
		if len(md) == 0 {
			p.add(r.DefRange(), "imdsv2", "%s: no metadata_options { http_tokens = \"required\" }", what)
		}
		for _, b := range md {
			p.want("imdsv2", what+".metadata_options", b.Body, b.DefRange(), "http_tokens", "required")
		}
		for _, typ := range []string{"root_block_device", "ebs_block_device"} {
			for _, b := range nested(r.Body, typ) {
				p.want("data-disks", what+"."+typ, b.Body, b.DefRange(), "delete_on_termination", true)
				p.want("data-disks", what+"."+typ, b.Body, b.DefRange(), "volume_type", "gp3")
			}
		}
	}
}

// gcpInstances: every instance is a standard VM that GCE deletes when its
// run duration is up, logs in with the metadata key and OS Login off, and
// has its local SSDs on NVMe.
func (p *policy) gcpInstances() {
	for _, r := range p.m.Resources("google_compute_instance") {
		what := addr(r)
		sched := nested(r.Body, "scheduling")
		if len(sched) == 0 {
			p.add(r.DefRange(), "self-destruct", "%s: no scheduling block (max_run_duration, DELETE)", what)
		}
		for _, s := range sched {
			p.want("self-destruct", what+".scheduling", s.Body, s.DefRange(), "provisioning_model", "STANDARD")
			p.want("self-destruct", what+".scheduling", s.Body, s.DefRange(), "instance_termination_action", "DELETE")
			mrd := nested(s.Body, "max_run_duration")
			if len(mrd) == 0 || attrExpr(mrd[0].Body, "seconds") == nil {
				p.add(s.DefRange(), "self-destruct", "%s.scheduling: no max_run_duration { seconds = … }", what)
			}
		}
		for _, bd := range nested(r.Body, "boot_disk") {
			for _, ip := range nested(bd.Body, "initialize_params") {
				if e := attrExpr(ip.Body, "labels"); e == nil {
					p.add(ip.DefRange(), "run-tags", "%s.boot_disk.initialize_params: no labels (the default labels do not reach the disk)", what)
				} else {
					p.keysOf(e.Range(), "run-tags", what+".boot_disk.initialize_params.labels", e, RunLabels, "ybbench-managed")
				}
			}
		}
		for _, b := range nested(r.Body, "scratch_disk") {
			p.want("data-disks", what+".scratch_disk", b.Body, b.DefRange(), "interface", "NVME")
		}
		p.gcpMetadata(r)
	}
}

func (p *policy) gcpMetadata(r *hclsyntax.Block) {
	what := addr(r)
	md, ok := objectKeys(attrExpr(r.Body, "metadata"))
	if !ok {
		p.add(r.DefRange(), "login", "%s: metadata must be an object with literal keys (ssh-keys, enable-oslogin, user-data)", what)
		return
	}
	if v, _ := literalString(md["enable-oslogin"]); v != "FALSE" {
		p.add(r.DefRange(), "login", "%s: metadata enable-oslogin must be \"FALSE\" (OS Login ignores metadata keys)", what)
	}
	if md["ssh-keys"] == nil {
		p.add(r.DefRange(), "login", "%s: metadata has no ssh-keys", what)
	}
	if e := md["user-data"]; e == nil || len(e.Variables()) == 0 {
		p.add(r.DefRange(), "self-destruct", "%s: metadata user-data must come from a variable (it carries the expiry timer)", what)
	}
}

// validationScope: a variable's validation refers to that variable alone.
// Terraform before 1.9 refuses anything else when it loads the module
// (the modules' minimum is 1.5.0), so a relation between variables is a
// precondition on the resource that needs it.
func (p *policy) validationScope() {
	for _, f := range p.m.Files {
		for _, b := range f.Body.Blocks {
			if b.Type != "variable" || len(b.Labels) != 1 {
				continue
			}
			for _, v := range b.Body.Blocks {
				a, ok := v.Body.Attributes["condition"]
				if v.Type != "validation" || !ok {
					continue
				}
				for _, tr := range a.Expr.Variables() {
					if name := traversalName(tr); name != "var."+b.Labels[0] {
						p.add(a.SrcRange, "validation-scope", "variable %q: its validation refers to %s (Terraform before 1.9 refuses that; use a precondition)", b.Labels[0], name)
					}
				}
			}
		}
	}
}

// traversalName is a reference's first two steps (var.zone, local.x).
func traversalName(tr hcl.Traversal) string {
	name := tr.RootName()
	if len(tr) > 1 {
		if a, ok := tr[1].(hcl.TraverseAttr); ok {
			name += "." + a.Name
		}
	}
	return name
}
