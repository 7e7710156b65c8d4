package sysbench

import "testing"

// Every option's default reads as its kind without error in each mode that
// has the option, and each name is listed once in its canonical spelling.
func TestOptionRows(t *testing.T) {
	seen := map[string]bool{}
	for _, d := range optionDefs {
		if seen[d.name] || canonical(d.name) != d.name {
			t.Errorf("--%s: listed twice or not canonical", d.name)
		}
		seen[d.name] = true
		for _, m := range []Mode{ModeFork, Mode1020} {
			def := d.defaultIn(m)
			if !d.lines.in(m) || def == "" {
				continue
			}
			if err := d.value.land(&Options{Mode: m}, d.name, def); err != nil {
				t.Errorf("--%s in mode %v: default %q: %v", d.name, m, def, err)
			}
		}
	}
}
