package aws

import (
	"errors"
	"strings"
	"testing"

	"github.com/ybbench/ybbench/infra"
)

// The offerings moto has for us-east-1 (cloud.md §9): c5.4xlarge
// everywhere but us-east-1e, i3.4xlarge everywhere.
var (
	eastZones   = []string{"us-east-1a", "us-east-1b", "us-east-1c", "us-east-1d", "us-east-1e", "us-east-1f"}
	eastOffered = map[string][]string{
		"c5.4xlarge": {"us-east-1a", "us-east-1b", "us-east-1c", "us-east-1d", "us-east-1f"},
		"i3.4xlarge": eastZones,
		"m5.large":   {"us-east-1c", "us-east-1d"},
	}
)

func TestPlaceZone(t *testing.T) {
	for _, c := range []struct {
		name     string
		zone     string
		types    []string
		fallback bool
		want     placement
		errs     []string
	}{
		{name: "offered", zone: "us-east-1e", types: []string{"i3.4xlarge"}, want: placement{"us-east-1e", "as set"}},
		{name: "not offered", zone: "us-east-1e", types: []string{"c5.4xlarge"},
			errs: []string{"zone: instance type c5.4xlarge is not offered in us-east-1e; zones of us-east-1 that offer it: us-east-1a, us-east-1b, us-east-1c, us-east-1d, us-east-1f; set zone to one of them, or zone_fallback=true"}},
		{name: "fallback", zone: "us-east-1e", types: []string{"c5.4xlarge"}, fallback: true,
			want: placement{"us-east-1a", "zone_fallback: c5.4xlarge not offered in us-east-1e; us-east-1a is the first zone of us-east-1 offering c5.4xlarge"}},
		{name: "fallback to a zone offering both types", zone: "us-east-1e", types: []string{"c5.4xlarge", "m5.large"}, fallback: true,
			want: placement{"us-east-1c", "zone_fallback: c5.4xlarge and m5.large not offered in us-east-1e; us-east-1c is the first zone of us-east-1 offering c5.4xlarge and m5.large"}},
		{name: "fallback finds no zone", zone: "us-east-1e", types: []string{"c5.4xlarge", "x9.huge"}, fallback: true,
			errs: []string{"instance type x9.huge is not offered in any zone of us-east-1"}},
		{name: "bad zone and a mistyped type", zone: "us-east-1z", types: []string{"c5.4xlargee"},
			errs: []string{"instance type c5.4xlargee is not offered in any zone of us-east-1",
				"zone: us-east-1z is not an availability zone of us-east-1; its zones: us-east-1a, us-east-1b, us-east-1c, us-east-1d, us-east-1e, us-east-1f"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, errs := placeZone("us-east-1", c.zone, eastZones, c.types, eastOffered, c.fallback)
			if got != c.want {
				t.Errorf("placement %+v, want %+v", got, c.want)
			}
			if len(errs) != len(c.errs) {
				t.Fatalf("errors %v, want %d", errs, len(c.errs))
			}
			for i, e := range errs {
				msg := e.Error()
				var se *infra.SettingError
				if errors.As(e, &se) {
					msg = se.Setting + ": " + se.Err.Error()
				}
				if !strings.HasPrefix(msg, c.errs[i]) {
					t.Errorf("error %d:\n got %s\nwant %s…", i, msg, c.errs[i])
				}
			}
		})
	}
}
