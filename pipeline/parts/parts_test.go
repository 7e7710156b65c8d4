package parts

import (
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ybbench/ybbench/infra"
	"github.com/ybbench/ybbench/provision"
)

// TestBuiltinEntriesAreTheirParts: every entry's constructor makes a part
// that calls itself by the entry's name, and a provider's traits as
// reported by the made provider are the entry's (the static traits the
// validation reads are the ones the running pipeline asks).
func TestBuiltinEntriesAreTheirParts(t *testing.T) {
	reg := Builtin()
	made := 0
	for _, e := range reg.Providers {
		p, err := reg.NewProvider(e.Name, ProviderOptions{Inventory: "hosts.yaml"})
		if e.Planned {
			if err == nil || !strings.Contains(err.Error(), "is not available") {
				t.Errorf("planned provider %s: made %v, %v", e.Name, p, err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("provider %s: %v", e.Name, err)
		}
		made++
		if p.Name() != e.Name {
			t.Errorf("entry %s makes a provider named %s", e.Name, p.Name())
		}
		if !reflect.DeepEqual(p.Traits(), e.Traits) {
			t.Errorf("provider %s: made with traits %+v, registered with %+v", e.Name, p.Traits(), e.Traits)
		}
	}
	for _, e := range reg.Flavors {
		f, err := reg.NewFlavor(e.Name, nil)
		if err != nil {
			t.Fatalf("flavor %s: %v", e.Name, err)
		}
		made++
		if f.Name() != e.Name {
			t.Errorf("entry %s makes a flavor named %s", e.Name, f.Name())
		}
		if len(e.Traits.APIs) == 0 {
			t.Errorf("flavor %s serves no API", e.Name)
		}
	}
	if made < 5 {
		t.Errorf("made %d parts, want the 2 providers and 3 flavors at least", made)
	}
	if _, err := reg.NewFlavor("oracle", nil); err == nil || err.Error() != `unknown flavor "oracle"` {
		t.Errorf("unknown flavor: %v", err)
	}
	if _, err := reg.NewProvider("moon", ProviderOptions{}); err == nil || err.Error() != `provider "moon" is not available` {
		t.Errorf("unknown provider: %v", err)
	}
}

// TestBuiltinChoices: what the built-in registry answers is what this
// machine's runs have always used: YSQL on postgres, YCQL on cassandra,
// a tarball on yugabyte, local by default, an inventory file meaning the
// inventory provider.
func TestBuiltinChoices(t *testing.T) {
	reg := Builtin()
	if got := reg.DefaultFlavor(provision.YSQL); got != "postgres" {
		t.Errorf("YSQL default %q", got)
	}
	if got := reg.DefaultFlavor(provision.YCQL); got != "cassandra" {
		t.Errorf("YCQL default %q", got)
	}
	if got, ok := reg.TarballFlavor(); !ok || got != "yugabyte" {
		t.Errorf("tarball flavor %q", got)
	}
	if got := reg.DefaultProvider(); got != "local" {
		t.Errorf("default provider %q", got)
	}
	if got, ok := reg.FileProvider(); !ok || got != "inventory" {
		t.Errorf("file provider %q", got)
	}
	if got := reg.Serving(provision.YCQL); !slices.Equal(got, []string{"cassandra", "yugabyte"}) {
		t.Errorf("YCQL served by %q", got)
	}
}

// TestRegistryOrderIsPreference: the default for an API is the first
// flavor that serves it and needs no tarball, so moving an entry changes
// the default; a tarball flavor is never a default.
func TestRegistryOrderIsPreference(t *testing.T) {
	sql := Flavor{Name: "sql", Traits: provision.FlavorTraits{APIs: []provision.API{provision.YSQL}}}
	both := Flavor{Name: "both", Traits: provision.FlavorTraits{APIs: []provision.API{provision.YCQL, provision.YSQL}}}
	tarball := Flavor{Name: "tar", Traits: provision.FlavorTraits{APIs: []provision.API{provision.YSQL, provision.YCQL}, Tarball: true}}
	for _, c := range []struct {
		flavors        []Flavor
		ysql, ycql, no string
		apis           []provision.API
	}{
		{[]Flavor{tarball, sql, both}, "sql", "both", "sql", []provision.API{provision.YSQL, provision.YCQL}},
		{[]Flavor{tarball, both, sql}, "both", "both", "both", []provision.API{provision.YSQL, provision.YCQL}},
		{[]Flavor{both, sql}, "both", "both", "both", []provision.API{provision.YCQL, provision.YSQL}},
		{[]Flavor{tarball}, "", "", "", []provision.API{provision.YSQL, provision.YCQL}},
	} {
		reg := &Registry{Flavors: c.flavors}
		if got := reg.DefaultFlavor(provision.YSQL); got != c.ysql {
			t.Errorf("%v: YSQL default %q, want %q", reg.FlavorNames(), got, c.ysql)
		}
		if got := reg.DefaultFlavor(provision.YCQL); got != c.ycql {
			t.Errorf("%v: YCQL default %q, want %q", reg.FlavorNames(), got, c.ycql)
		}
		if got := reg.DefaultFlavor(""); got != c.no {
			t.Errorf("%v: default without an API %q, want %q", reg.FlavorNames(), got, c.no)
		}
		if got := reg.APIs(); !slices.Equal(got, c.apis) {
			t.Errorf("%v: APIs %v, want %v", reg.FlavorNames(), got, c.apis)
		}
	}
	providers := &Registry{Providers: []Provider{{Name: "cloud", Planned: true}, {Name: "file", Traits: infra.Traits{FromFile: true}}, {Name: "here"}}}
	if got := providers.DefaultProvider(); got != "file" {
		t.Errorf("default provider %q: a planned provider is never the default", got)
	}
	if got := (&Registry{Providers: []Provider{{Name: "cloud", Planned: true}}}).DefaultProvider(); got != "" {
		t.Errorf("no available provider: default %q", got)
	}
}

// The clouds' teardowns wait on the clouds' own deletions: 30 minutes,
// where the other providers keep the pipeline's default.
func TestCloudTeardownLimits(t *testing.T) {
	for _, p := range Builtin().Providers {
		want := time.Duration(0)
		if p.Cloud != nil {
			want = 30 * time.Minute
		}
		if p.Traits.TeardownLimit != want {
			t.Errorf("%s: teardown limit %v, want %v", p.Name, p.Traits.TeardownLimit, want)
		}
	}
}
