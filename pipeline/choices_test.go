package pipeline

import (
	"strings"
	"testing"

	"github.com/ybbench/ybbench/infra"
	"github.com/ybbench/ybbench/pipeline/parts"
	"github.com/ybbench/ybbench/provision"
)

// testRegistry has parts with made-up names, so that what validation
// decides can only come from their traits.
func testRegistry() *parts.Registry {
	return &parts.Registry{
		Providers: []parts.Provider{
			{Name: "here", Traits: infra.Traits{NeedsRoot: true, DBHosts: infra.Range{Min: 1, Max: 2}, ClientHosts: infra.Range{Min: 1, Max: 1}}},
			{Name: "listed", Traits: infra.Traits{FromFile: true, ReusesMachines: true}},
			{Name: "later", Planned: true},
		},
		Flavors: []parts.Flavor{
			{Name: "sqlonly", Traits: provision.FlavorTraits{APIs: []provision.API{provision.YSQL}}},
			{Name: "cqlonly", Traits: provision.FlavorTraits{APIs: []provision.API{provision.YCQL}}},
			{Name: "both", Traits: provision.FlavorTraits{APIs: []provision.API{provision.YSQL, provision.YCQL}, Tarball: true}},
		},
	}
}

// TestValidationAsksTheRegistry: the flavor a run gets, and what is
// refused, follow the registry's traits and order, with the messages the
// built-in parts have always had.
func TestValidationAsksTheRegistry(t *testing.T) {
	for _, c := range []struct {
		name   string
		set    func(*Spec)
		flavor string // the resolved flavor, when valid
		errs   []string
	}{
		{"a YSQL profile gets the first flavor serving YSQL", func(s *Spec) { s.Profile = "ycsb-ysql" }, "sqlonly", nil},
		{"a YCQL profile gets the first flavor serving YCQL", func(s *Spec) { s.Profile = "ycsb-ycql" }, "cqlonly", nil},
		{"a tarball picks the flavor that installs from one", func(s *Spec) { s.Profile = "kv-ycql"; s.YBTarball = "/t.tgz" }, "both", nil},
		{"a flavor that does not serve YCQL is refused for a YCQL profile", func(s *Spec) { s.Profile = "kv-ycql"; s.Flavor = "sqlonly" }, "",
			[]string{"flavor: sqlonly does not speak YCQL, which profile kv-ycql uses (want cqlonly or both)"}},
		{"a flavor that does not serve YSQL is refused for a YSQL profile", func(s *Spec) { s.Profile = "sysbench-ysql"; s.Flavor = "cqlonly" }, "",
			[]string{"flavor: cqlonly does not speak YSQL, which profile sysbench-ysql uses (want sqlonly or both)"}},
		{"a tarball flavor needs its tarball", func(s *Spec) { s.Flavor = "both" }, "",
			[]string{"yb_tarball: the both flavor needs a release tarball"}},
		{"an unknown flavor lists the registry's", func(s *Spec) { s.Flavor = "postgres" }, "",
			[]string{`flavor: "postgres" (want sqlonly, cqlonly or both)`}},
		{"host counts are the provider's", func(s *Spec) { s.DBHosts, s.ClientHosts = 3, 2 }, "",
			[]string{"db_hosts: 3 (want 1 to 2 on a here cluster)", "client_hosts: 2 (want 1 to 1)"}},
		{"a provider reading a file takes any counts", func(s *Spec) { s.Provider, s.Inventory, s.DBHosts = "listed", "h.yaml", 30 }, "sqlonly", nil},
		{"a provider reading a file needs one", func(s *Spec) { s.Provider = "listed" }, "",
			[]string{"inventory: the listed provider needs an inventory file (--inventory hosts.yaml)"}},
		{"an inventory is refused by a provider making hosts", func(s *Spec) { s.Inventory = "h.yaml" }, "",
			[]string{"inventory: h.yaml is given but the provider is here (drop the inventory, or set provider: listed)"}},
		{"a planned provider is not available yet", func(s *Spec) { s.Provider = "later" }, "",
			[]string{"provider: later is not available yet in this version (here and listed are)"}},
		{"an unknown provider lists the available ones", func(s *Spec) { s.Provider = "local" }, "",
			[]string{`provider: "local" (want here or listed)`}},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := Defaults()
			s.Provider, s.DBHosts, s.ClientHosts = "here", 1, 1
			c.set(&s)
			r, err := s.resolve(testRegistry())
			if len(c.errs) == 0 {
				if err != nil {
					t.Fatal(err)
				}
				if r.Flavor != c.flavor {
					t.Errorf("flavor %q, want %q", r.Flavor, c.flavor)
				}
				return
			}
			if err == nil {
				t.Fatalf("valid (flavor %q), want %q", r.Flavor, c.errs)
			}
			for _, want := range c.errs {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error lacks %q:\n%v", want, err)
				}
			}
		})
	}
}

// TestSettingsDescribeTheRegistry: the settings table's words for the
// provider and flavor settings come from the registry's names and traits.
func TestSettingsDescribeTheRegistry(t *testing.T) {
	reg := testRegistry()
	for _, c := range []struct{ got, want string }{
		{providerChoices(reg), "here|listed"},
		{providerValid(reg), "here (root) or listed"},
		{hostsValid(reg, dbHosts), "1 to 2 (here)"},
		{hostsValid(reg, clientHosts), "1 to 1 (here)"},
		{flavorDefault(reg), "what speaks the profile's API here: both with a tarball, else sqlonly (YSQL) or cqlonly (YCQL)"},
		{wordList([]string{"a"}, "or"), "a"},
		{wordList([]string{"a", "b", "c", "d"}, "and"), "a, b, c and d"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}
