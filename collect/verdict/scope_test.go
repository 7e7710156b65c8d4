package verdict

import (
	"testing"

	"github.com/ybbench/ybbench/profiles"
)

// Every built-in profile has a family with operations, and only the
// tables that satisfy Little's law may gate: sysbench's never does.
func TestPublishedUsable(t *testing.T) {
	all, err := profiles.All()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{"ycsb-ysql": true, "ycsb-ycql": true, "kv-ycql": true, "sysbench-ysql": false}
	for _, p := range all {
		s := ScopeOf(p)
		if len(s.Operations) == 0 {
			t.Errorf("%s: family %q has no operations", p.Name, p.Family)
		}
		if w, ok := want[p.Name]; ok && s.PublishedUsable != w {
			t.Errorf("%s: published usable %v, want %v (%s)", p.Name, s.PublishedUsable, w, s.Why)
		}
	}
}
