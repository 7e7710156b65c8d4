package verdict

import (
	"slices"
	"testing"

	"github.com/ybbench/ybbench/bench/kv"
	"github.com/ybbench/ybbench/bench/sysbench"
	"github.com/ybbench/ybbench/bench/ycsb"
	"github.com/ybbench/ybbench/internal/profiles"
)

// The operations a gate may name are the engines' catalogs (written here
// because ybbench links no engine), less CLEANUP.
func TestFamilyOperationsAreTheCatalogs(t *testing.T) {
	for family, ops := range map[string][]string{
		"ycsb": ycsb.Catalog.Ops, "kv": kv.Catalog.Ops, "sysbench": (&sysbench.Workload{}).Catalog().Ops,
	} {
		want := slices.DeleteFunc(slices.Clone(ops), func(s string) bool { return s == "CLEANUP" })
		if !slices.Equal(familyOperations[family], want) {
			t.Errorf("%s: %v, the catalog has %v", family, familyOperations[family], want)
		}
	}
}

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
