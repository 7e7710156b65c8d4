package pipeline

import (
	"strings"
	"testing"

	"github.com/ybbench/ybbench/internal/golden"
	"github.com/ybbench/ybbench/profiles"
)

// The built-in profiles as one table, a dash where a profile does not use
// a parameter.
func TestProfilesTable(t *testing.T) {
	l, err := ListProfiles()
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := WriteProfiles(&b, l); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "profiles.txt", []byte(b.String()))
}

// A profile's parameters hold exactly the ones it uses, with the
// profile's values; an unknown name is refused naming the known ones.
func TestProfileParametersAreTheUsedOnes(t *testing.T) {
	l, err := ListProfiles()
	if err != nil {
		t.Fatal(err)
	}
	for _, info := range l.Profiles {
		p, err := profiles.Get(info.Name)
		if err != nil {
			t.Fatal(err)
		}
		par := info.Parameters
		for setting, given := range map[string]bool{"records": par.Records != 0, "operations": par.Operations != 0,
			"load_threads": par.LoadThreads != 0, "threads": par.Threads != 0 || len(par.WorkloadThreads) > 0,
			"duration": par.Duration != "", "warmup": par.Warmup != ""} {
			if given != Uses(p, setting) {
				t.Errorf("%s: %s given %v, used %v", info.Name, setting, given, Uses(p, setting))
			}
		}
		if par.Records != 0 && par.Records != p.Parameters.Records || par.Duration != p.Parameters.Duration.String() {
			t.Errorf("%s: parameters %+v differ from the profile's %+v", info.Name, par, p.Parameters)
		}
	}
	if _, err := ListProfiles("ycsb-ysql", "nope"); err == nil || !strings.Contains(err.Error(), `no profile "nope"`) || !strings.Contains(err.Error(), "kv-ycql") {
		t.Errorf("an unknown profile: %v", err)
	}
}
