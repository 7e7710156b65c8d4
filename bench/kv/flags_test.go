package kv

import "testing"

// Every flag that changes something lands through its row's setter, and
// every default and required flag has one: a row without a setter is
// accepted and dropped, which only the refused flags and those without
// effect may be (--num_threads, without effect, is still checked as the
// reference checks it). A default is a value or a note, not both.
func TestFlagRowsLand(t *testing.T) {
	for _, d := range flagDefs {
		_, refused := unsupported[d.name]
		_, ignored := noEffect[d.name]
		if wantSetter := !refused && (!ignored || d.name == "num_threads"); (d.set != nil) != wantSetter {
			t.Errorf("--%s: has a setter %v, want %v", d.name, d.set != nil, wantSetter)
		}
		if d.def != "" && d.defNote != "" {
			t.Errorf("--%s: default %q and note %q", d.name, d.def, d.defNote)
		}
		if d.def != "" {
			if err := d.set(&Options{Set: map[string]string{}}, d.name, d.def); err != nil {
				t.Errorf("--%s: its default does not land: %v", d.name, err)
			}
		}
	}
}
