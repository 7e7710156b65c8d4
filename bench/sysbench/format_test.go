package sysbench

import (
	"slices"
	"testing"

	"github.com/ybbench/ybbench/record"
)

// The measurement names a gate may give for the sysbench family
// (record.FamilyOperations) are this engine's catalog, less CLEANUP.
func TestCatalogIsTheFamilysOperations(t *testing.T) {
	want := slices.DeleteFunc(slices.Clone((&Workload{}).Catalog().Ops), func(s string) bool { return s == "CLEANUP" })
	if got := record.FamilyOperations["sysbench"]; !slices.Equal(got, want) {
		t.Errorf("record.FamilyOperations[sysbench] = %v, the catalog has %v", got, want)
	}
}
