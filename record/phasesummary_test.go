package record

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestPhaseSummaryDDLShapes(t *testing.T) {
	for _, c := range []struct {
		name, doc, want string
	}{
		{"one statement", `{"ddl": "CREATE TABLE usertable (k text PRIMARY KEY)", "rows": 3}`, "CREATE TABLE usertable (k text PRIMARY KEY)"},
		{"one table's statements", `{"ddl": [["CREATE TABLE sbtest1 (id serial)", "CREATE INDEX k_1 ON sbtest1(k)"]]}`,
			"CREATE TABLE sbtest1 (id serial); CREATE INDEX k_1 ON sbtest1(k)"},
		{"several tables", `{"ddl": [["CREATE TABLE sbtest1 (id serial)"], ["CREATE TABLE sbtest2 (id serial)"], ["CREATE TABLE sbtest3 (id serial)"]]}`,
			"CREATE TABLE sbtest1 (id serial) (the first of 3 tables)"},
		{"no tables", `{"ddl": []}`, ""},
		{"null", `{"ddl": null}`, ""},
		{"absent", `{"rows": 3}`, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := PhaseSummary{DDL: "left from before"}
			if err := json.Unmarshal([]byte(c.doc), &s); err != nil {
				t.Fatal(err)
			}
			if s.DDL != c.want {
				t.Errorf("DDL %q, want %q", s.DDL, c.want)
			}
		})
	}
}

func TestPhaseSummaryDDLRefusesOtherShapes(t *testing.T) {
	for _, doc := range []string{`{"ddl": 3}`, `{"ddl": {"t": "x"}}`, `{"ddl": ["CREATE TABLE t (k int)"]}`} {
		var s PhaseSummary
		err := json.Unmarshal([]byte(doc), &s)
		if err == nil || !strings.Contains(err.Error(), "neither a statement nor a list of each table's statements") {
			t.Errorf("%s: %v", doc, err)
		}
	}
	// A summary that is not an object fails as any JSON does.
	var s PhaseSummary
	if err := json.Unmarshal([]byte(`[1]`), &s); err == nil {
		t.Error("an array as the summary: no error")
	}
}
