//go:build e2e

package main

import (
	"strings"
	"testing"
)

// unwrittenHere are the fields of result.schema.json that no run of the
// e2e tier can write, each with why. Every other field is written by at
// least one real run of the tier, and validated there (checkSchema).
var unwrittenHere = map[string]string{}

// TestE2EZResultSchemaCovered runs after the tier's other tests (its file
// sorts last): every field result.schema.json declares was in the
// result.json of a real run of this tier (every family, repeats, several
// clients, a failed and an interrupted workload), but for unwrittenHere;
// and unwrittenHere names only fields that were indeed never written.
func TestE2EZResultSchemaCovered(t *testing.T) {
	schemaCoverage.Lock()
	defer schemaCoverage.Unlock()
	if schemaCoverage.results == 0 {
		t.Skip("no real run's result.json was validated in this process: run the whole e2e tier")
	}
	fields := schemaFields()
	if len(fields) < 50 {
		t.Fatalf("read %d fields of result.schema.json", len(fields))
	}
	var missing []string
	for _, f := range fields {
		_, excused := unwrittenHere[f]
		switch {
		case !schemaCoverage.seen[f] && !excused:
			missing = append(missing, f)
		case schemaCoverage.seen[f] && excused:
			t.Errorf("%s is listed as unwritten here (%s), but a run wrote it: remove it from unwrittenHere", f, unwrittenHere[f])
		}
	}
	t.Logf("%d results validated, %d of %d schema fields written by real runs", schemaCoverage.results, len(schemaCoverage.seen), len(fields))
	if len(missing) > 0 {
		t.Errorf("%d fields of result.schema.json no real run of the tier wrote (cover them with a run, or name them in unwrittenHere with why):\n  %s",
			len(missing), strings.Join(missing, "\n  "))
	}
}
