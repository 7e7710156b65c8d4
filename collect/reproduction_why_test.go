package collect

import (
	"strings"
	"testing"
)

// The reasons every row gives are said once; a row keeps its own; a row
// without reasons gives its furthest figure; one row alone shares nothing.
func TestSharedReasonsAndWhy(t *testing.T) {
	standIn := Reason{Tag: "stand-in database", Text: "the database was PostgreSQL"}
	local := Reason{Tag: "other hardware", Text: "the hosts shared one machine"}
	few := Reason{Tag: "too few repetitions", Text: "1 repetition(s)"}
	rep := &Reproduction{Rows: []ReproducedRow{
		{Workload: "a", Status: NotComparable, Reasons: []Reason{standIn, local, few}},
		{Workload: "b", Status: NotComparable, Reasons: []Reason{standIn, local}},
		{Workload: "c", Status: NotComparable, Reasons: []Reason{local, standIn}},
	}}
	shared := rep.SharedReasons()
	if len(shared) != 2 || shared[0] != standIn || shared[1] != local {
		t.Fatalf("shared %v, want the stand-in and the hardware", shared)
	}
	if got := rep.Rows[0].Why(shared); got != "the reasons above, and 1 repetition(s)" {
		t.Errorf("a: %q", got)
	}
	if got := rep.Rows[2].Why(shared); !strings.Contains(got, "every row") {
		t.Errorf("c: %q", got)
	}
	notRepro := ReproducedRow{Workload: "d", Status: NotReproduced, Worst: "Read Latency 1.8× the published"}
	if got := notRepro.Why(shared); got != notRepro.Worst {
		t.Errorf("d: %q, want the furthest figure", got)
	}
	// A row that is not comparable beside one that is compared shares
	// nothing: each row says its own.
	mixed := &Reproduction{Rows: []ReproducedRow{rep.Rows[0], notRepro}}
	if s := mixed.SharedReasons(); len(s) != 0 {
		t.Errorf("mixed rows share %v", s)
	}
	if got := rep.Rows[0].Why(nil); got != "the database was PostgreSQL; the hosts shared one machine; 1 repetition(s)" {
		t.Errorf("a alone: %q", got)
	}
	one := &Reproduction{Rows: rep.Rows[:1]}
	if s := one.SharedReasons(); s != nil {
		t.Errorf("one row shares %v", s)
	}
}
