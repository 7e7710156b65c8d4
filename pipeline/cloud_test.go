package pipeline

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ybbench/ybbench/infra"
	"github.com/ybbench/ybbench/infra/aws"
	"github.com/ybbench/ybbench/pipeline/parts"
)

// fakeCloud stands in for a cloud provider (aws, gcp), which this version
// does not have yet: it records every spec it is asked to plan, check and
// make, plans purely from the spec, and makes hosts that exist nowhere.
type fakeCloud struct {
	checkErr error

	mu                        sync.Mutex
	planned, checked, created []infra.ClusterSpec
	destroyed                 int
	destroyDeadline           time.Time
}

func (p *fakeCloud) Name() string         { return "fake-cloud" }
func (p *fakeCloud) Traits() infra.Traits { return infra.Traits{TeardownLimit: fakeTeardownLimit} }

// fakeTeardownLimit is the fake cloud's teardown limit: not the real
// providers' (30 minutes), so that a test sees which one bounds a teardown.
const fakeTeardownLimit = 25 * time.Minute

// Plan lists the hosts and the rules as a cloud provider's plan says
// them, from the spec alone.
func (p *fakeCloud) Plan(s infra.ClusterSpec) ([]infra.PlannedHost, string, error) {
	p.mu.Lock()
	p.planned = append(p.planned, s)
	p.mu.Unlock()
	var hs []infra.PlannedHost
	for i := 1; i <= s.DBHosts; i++ {
		hs = append(hs, infra.PlannedHost{Name: fmt.Sprintf("db-%d", i), Roles: []infra.Role{infra.RoleDB}, Where: s.InstanceType + " in " + s.Zone})
	}
	for i := 1; i <= s.ClientHosts; i++ {
		hs = append(hs, infra.PlannedHost{Name: fmt.Sprintf("client-%d", i), Roles: []infra.Role{infra.RoleClient}, Where: s.ClientType + " in " + s.Zone})
	}
	from := s.Options[infra.OptionSSHCIDR]
	if from == "" {
		from = "<not known yet>"
	}
	return hs, "a network of the run's own; port 22 from " + from + ", every other port from the subnet", nil
}

func (p *fakeCloud) Check(ctx context.Context, s infra.ClusterSpec) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.checked = append(p.checked, s)
	return p.checkErr
}

// Create makes a cluster created two hours ago, whose Meta holds what a
// check found.
func (p *fakeCloud) Create(ctx context.Context, s infra.ClusterSpec) (*infra.Cluster, error) {
	p.mu.Lock()
	p.created = append(p.created, s)
	p.mu.Unlock()
	c := &infra.Cluster{Name: s.Name, Provider: "fake-cloud", CreatedAt: time.Now().UTC().Add(-2 * time.Hour),
		Meta: map[string]string{"account": "123456789012", infra.MetaTerraformVersion: "1.5.7"}}
	for i := 1; i <= s.DBHosts; i++ {
		c.Hosts = append(c.Hosts, infra.Host{Name: fmt.Sprintf("db-%d", i), Roles: []infra.Role{infra.RoleDB}, PublicIP: "198.51.100.1"})
	}
	return c, nil
}

func (p *fakeCloud) Destroy(ctx context.Context, c *infra.Cluster) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.destroyed++
	p.destroyDeadline, _ = ctx.Deadline()
	return nil
}

func (p *fakeCloud) counts() (planned, checked, created int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.planned), len(p.checked), len(p.created)
}

// cloudRegistry is the built-in registry with its cloud providers (still
// planned in this version) available, each made as p; their names and
// defaults are the built-in ones.
func cloudRegistry(p infra.Provider) *parts.Registry {
	reg := parts.Builtin()
	for i := range reg.Providers {
		if reg.Providers[i].Cloud != nil {
			reg.Providers[i].Planned = false
			reg.Providers[i].Traits = p.Traits()
			reg.Providers[i].New = func(parts.ProviderOptions) (infra.Provider, error) { return p, nil }
		}
	}
	return reg
}

// cloudDeps wire p as every cloud provider of cloudRegistry.
func cloudDeps(p infra.Provider) Deps {
	return Deps{Registry: cloudRegistry(p), Provider: func(*Spec, string) (infra.Provider, error) { return p, nil }}
}

// resolveFlags loads flags and resolves them against reg.
func resolveFlags(t *testing.T, reg *parts.Registry, flags map[string]string) (Spec, *Resolved, error) {
	t.Helper()
	if _, ok := flags["runs_dir"]; !ok {
		flags["runs_dir"] = t.TempDir()
	}
	s, err := Load(CommandLine{Flags: flags})
	if err != nil {
		t.Fatalf("load %v: %v", flags, err)
	}
	r, err := s.resolve(reg)
	return s, r, err
}

// wantProblems checks that err holds exactly the problems given, one a
// line, each naming its setting.
func wantProblems(t *testing.T, what string, err error, want []string) {
	t.Helper()
	if err == nil {
		t.Errorf("%s: accepted; want %q", what, want)
		return
	}
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("%s: error lacks %q:\n%v", what, w, err)
		}
	}
	if n := strings.Count(err.Error(), "\n") + 1; n != len(want) {
		t.Errorf("%s: %d lines, want one per problem (%d):\n%v", what, n, len(want), err)
	}
}

// The cloud settings are refused with a provider that would not read
// them, naming where each came from; the settings of other providers are
// refused with a cloud, as is an inventory.
func TestCloudSettingsWhereTheyDoNotApply(t *testing.T) {
	reg := cloudRegistry(&fakeCloud{})
	_, _, err := resolveFlags(t, reg, map[string]string{"provider": "local", "region": "us-east-1", "ssh_cidr": "203.0.113.7/32",
		"zone_fallback": "true", "max_cost": "5", "lifetime": "2h"})
	wantProblems(t, "local with cloud settings", err, []string{"--region: only the cloud providers (aws and gcp) read it, not the local provider",
		"--ssh-cidr: only the cloud", "--zone-fallback: only the cloud", "--max-cost: only the cloud", "--lifetime: only the cloud"})

	// A spec made without layers (a ledger's) is judged by its values: the
	// defaults pass, another value does not.
	s := Defaults()
	if err := s.validate(reg); err != nil {
		t.Errorf("the defaults on local: %v", err)
	}
	s.Image = "ami-0123456789abcdef0"
	wantProblems(t, "local with an image", s.validate(reg), []string{"image: only the cloud providers"})

	_, _, err = resolveFlags(t, reg, map[string]string{"provider": "aws", "profile": "kv-ycql", "ssh_cidr": "203.0.113.7/32",
		"subnet": "10.9.0.0/24", "db_hosts": "5", "client_hosts": "2", "inventory": "hosts.yaml"})
	wantProblems(t, "aws with local settings", err, []string{"--subnet: not taken by the aws provider: the cloud provider makes a network of its own",
		"--db-hosts: not taken by the aws provider: on a cloud the profile's documented hardware sets the host counts", "--client-hosts: not taken",
		"--inventory: hosts.yaml is given but the provider is aws"})
}

// Bad input to a cloud run is refused before anything asks the cloud:
// every problem at once, each naming its setting.
func TestCloudBadInput(t *testing.T) {
	reg := cloudRegistry(&fakeCloud{})
	for _, c := range []struct {
		name  string
		flags map[string]string
		want  []string
	}{
		{"no gcp hardware", map[string]string{"provider": "gcp", "profile": "ycsb-ysql", "project": "p"},
			[]string{"--provider: profile ycsb-ysql has no gcp hardware (it has: aws)"}},
		{"ssh to everyone", map[string]string{"provider": "aws", "ssh_cidr": "0.0.0.0/0"}, []string{"--ssh-cidr: 0.0.0.0/0 would open SSH to the whole internet"}},
		{"ssh to a /8", map[string]string{"provider": "aws", "ssh_cidr": "10.0.0.0/8"}, []string{"--ssh-cidr: 10.0.0.0/8: a /8 is too wide for SSH; want /16 or longer"}},
		{"ssh not a cidr", map[string]string{"provider": "aws", "ssh_cidr": "my-laptop"}, []string{`--ssh-cidr: "my-laptop" is not an IPv4 CIDR`}},
		{"ssh over IPv6", map[string]string{"provider": "aws", "ssh_cidr": "2001:db8::/64"}, []string{`"2001:db8::/64" is not an IPv4 CIDR`}},
		{"ssh host bits", map[string]string{"provider": "aws", "ssh_cidr": "203.0.113.7/24"}, []string{"did you mean 203.0.113.0/24?"}},
		{"lifetime short", map[string]string{"provider": "aws", "lifetime": "10m"}, []string{"--lifetime: 10m0s: want 30m to 168h"}},
		{"lifetime long", map[string]string{"provider": "aws", "lifetime": "169h"}, []string{"--lifetime: 169h0m0s: want 30m to 168h"}},
		{"gcp without project", map[string]string{"provider": "gcp", "profile": "kv-ycql"}, []string{"project: the gcp provider needs the project"}},
		{"aws with a project", map[string]string{"provider": "aws", "project": "p"}, []string{"--project: the aws provider takes no project (only gcp does)"}},
		{"lookup over http", map[string]string{"provider": "aws", "ssh_cidr_lookup_url": "http://checkip.example"}, []string{`--ssh-cidr-lookup-url: "http://checkip.example": want an https:// URL`}},
		{"max_cost zero", map[string]string{"provider": "aws", "region": "us-east-1", "max_cost": "0"}, []string{"--max-cost: 0: want more than 0 US dollars"}},
		{"max_cost not a number", map[string]string{"provider": "aws", "max_cost": "ten"}, []string{`--max-cost: "ten" is not a number`}},
		{"all at once", map[string]string{"provider": "gcp", "profile": "ycsb-ycql", "ssh_cidr": "0.0.0.0/0", "lifetime": "1m", "subnet": "10.1.0.0/24"},
			[]string{"--provider: profile ycsb-ycql has no gcp hardware", "--ssh-cidr:", "--lifetime:", "project: the gcp provider needs", "--subnet:"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			flags := c.flags
			s, err := Load(CommandLine{Flags: flags})
			if err == nil {
				_, err = s.resolve(reg)
			}
			wantProblems(t, c.name, err, c.want)
		})
	}
}

// max_cost is judged against the estimate's upper bound before anything
// is asked of the cloud: refused below it with both figures and the price
// table's date, refused when an item has no price, taken at or above it.
// The figures here come from prices.csv's rows by hand: c5.4xlarge 0.680
// USD an hour and gp3 0.08 USD a GB-month in us-east-1 (a month of 28
// days), i3.4xlarge 1.248 in us-west-2, its instance store included.
func TestMaxCost(t *testing.T) {
	reg := cloudRegistry(&fakeCloud{})
	c5 := 4*0.680 + 3*2*250*0.08/(28*24) // 3 db hosts with 2 × 250 GB, 1 client
	bound := c5 * 6
	if fmt.Sprintf("%.2f", bound) != "17.39" {
		t.Fatalf("the hand-made bound is %.4f", bound)
	}
	date := tableDate(t)
	_, _, err := resolveFlags(t, reg, map[string]string{"provider": "aws", "region": "us-east-1", "max_cost": "17"})
	wantProblems(t, "below the bound", err, []string{"--max-cost: 17.00 USD is below the run's upper bound of 17.39 USD (2.90 USD an hour × lifetime 6h0m0s; price table of " + date + ")"})
	if _, _, err := resolveFlags(t, reg, map[string]string{"provider": "aws", "region": "us-east-1", "max_cost": "17.39"}); err != nil {
		t.Errorf("max_cost at the bound as printed: %v", err)
	}
	if _, _, err := resolveFlags(t, reg, map[string]string{"provider": "aws", "region": "us-east-1", "max_cost": "17", "lifetime": "5h"}); err != nil {
		t.Errorf("a shorter lifetime within max_cost: %v", err)
	}
	// us-west-2 has no gp3 price in the table.
	_, _, err = resolveFlags(t, reg, map[string]string{"provider": "aws", "region": "us-west-2", "max_cost": "100"})
	wantProblems(t, "no price", err, []string{"--max-cost: 100.00 USD cannot be checked: the price table of " + date + " has no price for gp3 in aws us-west-2"})
	i3 := 4 * 1.248 * 6 // kv-ycql: 3 + 1 i3.4xlarge for 6 hours
	if _, _, err := resolveFlags(t, reg, map[string]string{"provider": "aws", "profile": "kv-ycql", "max_cost": fmt.Sprintf("%.2f", i3)}); err != nil {
		t.Errorf("kv-ycql within %.2f USD: %v", i3, err)
	}
}

// tableDate is prices.csv's table_date, read as its text says it.
func tableDate(t *testing.T) string {
	t.Helper()
	tb, err := priceTable()
	if err != nil || tb.Date == "" {
		t.Fatalf("price table: %v", err)
	}
	return tb.Date
}

// A cloud run's cluster spec is the profile's hardware for the provider
// and the cloud settings, the provider's defaults filling the rest; the
// resolved spec records them.
func TestCloudClusterSpec(t *testing.T) {
	reg := cloudRegistry(&fakeCloud{})
	_, r, err := resolveFlags(t, reg, map[string]string{"provider": "gcp", "profile": "kv-ycql", "project": "bench-1", "ssh_cidr": "198.51.100.0/24",
		"zone_fallback": "true", "region": "europe-west4"})
	if err != nil {
		t.Fatal(err)
	}
	spec, err := r.clusterSpec(reg, r.P)
	if err != nil {
		t.Fatal(err)
	}
	want := infra.ClusterSpec{DBHosts: 3, ClientHosts: 1, InstanceType: "n1-standard-16", ClientType: "n1-standard-16",
		Disks: infra.Disks{Count: 2, Kind: "local-ssd", SizeGB: 375}, Region: "europe-west4", Zone: "europe-west4-a",
		Owner: r.Owner, Lifetime: 6 * time.Hour}
	opts := spec.Options
	spec.Options = nil
	if fmt.Sprint(spec) != fmt.Sprint(want) {
		t.Errorf("spec\n%+v\nwant\n%+v", spec, want)
	}
	wantOpts := map[string]string{infra.OptionSSHCIDR: "198.51.100.0/24", infra.OptionProject: "bench-1", infra.OptionZoneFallback: "true",
		infra.OptionImage: "ubuntu-os-cloud/ubuntu-2204-lts"}
	if fmt.Sprint(opts) != fmt.Sprint(wantOpts) {
		t.Errorf("options %v, want %v", opts, wantOpts)
	}
	if r.Region != "europe-west4" || r.Zone != "europe-west4-a" || r.Image != "ubuntu-os-cloud/ubuntu-2204-lts" {
		t.Errorf("the resolved spec records %q %q %q", r.Region, r.Zone, r.Image)
	}
	// aws's defaults, and a zone given.
	_, r, err = resolveFlags(t, reg, map[string]string{"provider": "aws", "zone": "us-east-1c", "image": "ami-0123456789abcdef0"})
	if err != nil {
		t.Fatal(err)
	}
	spec, _ = r.clusterSpec(reg, r.P)
	if spec.Region != "us-east-1" || spec.Zone != "us-east-1c" || spec.InstanceType != "c5.4xlarge" || spec.Disks.Kind != "gp3" ||
		spec.Options[infra.OptionImage] != "ami-0123456789abcdef0" || spec.Options[infra.OptionProject] != "" || spec.Options[infra.OptionZoneFallback] != "" {
		t.Errorf("aws spec %+v", spec)
	}
	if _, ok := spec.Options["subnet"]; ok {
		t.Errorf("a cloud spec has a subnet option: %v", spec.Options)
	}
}

// The up step of a cloud run makes the profile's hardware for the
// provider and records the cluster's Meta and the cost estimate; the down
// step records the hours the hosts lived and their cost.
func TestCloudUpAndDownRecordCost(t *testing.T) {
	p := &fakeCloud{}
	deps := cloudDeps(p)
	deps.Progress = NewLines(discard{})
	deps.NewKey = func(dir string) (string, string, error) { return "ssh-ed25519 AAAAtest run", dir + "/id_ed25519", nil }
	_, res, err := resolveFlags(t, deps.Registry, map[string]string{"provider": "aws", "region": "us-east-1", "ssh_cidr": "203.0.113.7/32"})
	if err != nil {
		t.Fatal(err)
	}
	r, err := New(res, deps)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	ctx := context.Background()
	if err := r.Up(ctx); err != nil {
		t.Fatal(err)
	}
	if _, _, n := p.counts(); n != 1 {
		t.Fatalf("%d creates", n)
	}
	got := p.created[0]
	if got.Name != r.ID() || got.InstanceType != "c5.4xlarge" || got.ClientType != "c5.4xlarge" || got.DBHosts != 3 || got.ClientHosts != 1 ||
		got.Disks != (infra.Disks{Count: 2, Kind: "gp3", SizeGB: 250}) || got.Zone != "us-east-1a" || got.Options[infra.OptionSSHCIDR] != "203.0.113.7/32" ||
		got.PublicKey != "ssh-ed25519 AAAAtest run" {
		t.Errorf("created %+v", got)
	}
	up := stepNamed(t, r, "up")
	for k, v := range map[string]string{"account": "123456789012", infra.MetaTerraformVersion: "1.5.7", "cost_hourly_usd": "2.90",
		"cost_upper_bound_usd": "17.39", "price_table_date": tableDate(t)} {
		if up.Details[k] != v {
			t.Errorf("up step's %s = %q, want %q (details %v)", k, up.Details[k], v, up.Details)
		}
	}
	// The teardown is bounded by the run's provider's limit, not the
	// pipeline's default of 10 minutes.
	before := time.Now()
	if err := r.TearDown(); err != nil {
		t.Fatal(err)
	}
	if left := p.destroyDeadline.Sub(before); left < fakeTeardownLimit-time.Minute || left > fakeTeardownLimit+time.Minute {
		t.Errorf("Destroy's context ends %v after the teardown began, want the provider's %v", left, fakeTeardownLimit)
	}
	down := stepNamed(t, r, "down")
	// Created two hours ago (the fake's cluster): 2 h at 2.8986 USD an hour.
	if !strings.HasPrefix(down.Details["hours_used"], "2.00") || down.Details["cost_used_usd"] != "5.80" ||
		!strings.Contains(down.Details["cost_used_basis"], "price table of "+tableDate(t)) {
		t.Errorf("down step's details %v", down.Details)
	}
}

type discard struct{}

func (discard) Write(b []byte) (int, error) { return len(b), nil }

// stepNamed is a run's ledger step.
func stepNamed(t *testing.T, r *Run, name string) Step {
	t.Helper()
	for _, st := range r.Ledger().Record().Steps {
		if st.Name == name {
			return st
		}
	}
	t.Fatalf("no step %s in the ledger", name)
	return Step{}
}

// plan for a cloud works offline: it asks the provider's pure Plan (with
// the address the run would look up standing as PlanAddress), checks
// nothing, and shows the hosts, types, disks, zone, image, who may reach
// SSH, the lifetime and the cost, in text and JSON.
func TestCloudPlan(t *testing.T) {
	p := &fakeCloud{}
	deps := cloudDeps(p)
	deps.Flavor = planDeps().Flavor
	_, r, err := resolveFlags(t, deps.Registry, map[string]string{"provider": "aws", "region": "us-east-1", "max_cost": "20"})
	if err != nil {
		t.Fatal(err)
	}
	pl, err := MakePlan(r, deps)
	if err != nil {
		t.Fatal(err)
	}
	if planned, checked, created := p.counts(); planned != 1 || checked != 0 || created != 0 {
		t.Fatalf("plan asked the provider to plan %d, check %d, create %d times", planned, checked, created)
	}
	asked := p.planned[0]
	if asked.InstanceType != "c5.4xlarge" || asked.DBHosts != 3 || asked.ClientHosts != 1 || asked.Zone != "us-east-1a" ||
		asked.Options[infra.OptionSSHCIDR] != "" || asked.Options[infra.OptionImage] != aws.DefaultImage {
		t.Errorf("the provider planned %+v", asked)
	}
	c := pl.Cloud
	if c == nil || c.Region != "us-east-1" || c.Zone != "us-east-1a" || c.Image != aws.DefaultImage || c.InstanceType != "c5.4xlarge" ||
		c.ClientType != "c5.4xlarge" || c.Disks != (PlanDisks{Count: 2, Kind: "gp3", SizeGB: 250}) || c.SSHFrom != PlanAddress ||
		!strings.Contains(c.SSHFromBy, "https://checkip.amazonaws.com") || c.Lifetime != "6h0m0s" || c.LifetimeSeconds != 6*3600 {
		t.Errorf("cloud %+v", c)
	}
	hourly := 4*0.680 + 3*2*250*0.08/(28*24)
	k := pl.Cost
	if k == nil || k.HourlyUSD == nil || k.UpperBoundUSD == nil || math.Abs(*k.HourlyUSD-hourly) > 1e-9 || math.Abs(*k.UpperBoundUSD-6*hourly) > 1e-9 ||
		k.TableDate != tableDate(t) || len(k.Lines) != 3 || k.MaxCostUSD == nil || *k.MaxCostUSD != 20 || len(k.NoPriceFor) != 0 {
		t.Fatalf("cost %+v", k)
	}
	for _, x := range []string{"tax", "data transfer", "public IPv4 addresses", "discounts"} {
		if !strings.Contains(strings.Join(k.Excludes, ", "), x) {
			t.Errorf("the estimate does not say it excludes %s: %v", x, k.Excludes)
		}
	}
	var b strings.Builder
	if err := WritePlanText(&b, pl); err != nil {
		t.Fatal(err)
	}
	text := b.String()
	for _, w := range []string{"  db-1      roles db         c5.4xlarge in us-east-1a\n", "cloud: aws, region us-east-1, zone us-east-1a (zone_fallback off)",
		"image " + aws.DefaultImage, "db hosts c5.4xlarge, each with 2× gp3 250 GB data disks; client hosts c5.4xlarge",
		"SSH (port 22) only from <your public address>/32 (looked up at https://checkip.amazonaws.com when the run is created)",
		"up         a network of the run's own; port 22 from <not known yet>, every other port from the subnet",
		"lifetime 6h0m0s: the hosts power off at its end", "hourly rate 2.90 USD; upper bound 17.39 USD for the lifetime of 6h0m0s",
		"price table of " + tableDate(t), "excludes: tax, data transfer", "max_cost 20.00 USD: the upper bound is within it"} {
		if !strings.Contains(text, w) {
			t.Errorf("the plan lacks %q:\n%s", w, text)
		}
	}
	j, err := json.Marshal(pl)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{`"upper_bound_usd":17.39`, `"price_table_date":"` + tableDate(t) + `"`, `"ssh_from":"\u003cyour public address\u003e/32"`, `"zone":"us-east-1a"`} {
		if !strings.Contains(strings.ReplaceAll(string(j), "17.391428571428573", "17.39"), w) {
			t.Errorf("plan JSON lacks %s:\n%s", w, j)
		}
	}

	// In a region the table does not price (gp3 in us-west-2), the plan
	// says what has no price; an ssh_cidr given is shown with its flag.
	_, r, err = resolveFlags(t, deps.Registry, map[string]string{"provider": "aws", "region": "us-west-2", "ssh_cidr": "198.51.100.7/32"})
	if err != nil {
		t.Fatal(err)
	}
	if pl, err = MakePlan(r, deps); err != nil {
		t.Fatal(err)
	}
	if k := pl.Cost; k.HourlyUSD != nil || k.UpperBoundUSD != nil || fmt.Sprint(k.NoPriceFor) != "[gp3]" || !strings.Contains(k.Text, "cost: unknown: no price for gp3 in aws us-west-2") {
		t.Errorf("unpriced cost %+v", k)
	}
	if pl.Cloud.SSHFrom != "198.51.100.7/32" || pl.Cloud.SSHFromBy != "--ssh-cidr" || p.planned[1].Options[infra.OptionSSHCIDR] != "198.51.100.7/32" {
		t.Errorf("ssh_cidr given: %+v; planned %v", pl.Cloud, p.planned[1].Options)
	}
}

// The lifetime's bounds as the help says them are the ones checked.
func TestLifetimeBoundsText(t *testing.T) {
	lo, hi, _ := strings.Cut(lifetimeBounds, " to ")
	for _, c := range []struct {
		text string
		want time.Duration
	}{{lo, minLifetime}, {hi, maxLifetime}} {
		if d, err := time.ParseDuration(c.text); err != nil || d != c.want {
			t.Errorf("%q: %v, %v; want %v", c.text, d, err, c.want)
		}
	}
}
