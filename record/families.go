package record

// FamilyOperations are the measurement names each workload family's agent
// writes in its tick records (its engine's catalog, less CLEANUP, the
// agent's own bookkeeping). They are part of the format: gates name them,
// and the orchestrator, which links no engine, knows them only from here.
// Each engine's tests hold its catalog to its row.
var FamilyOperations = map[string][]string{
	"ycsb":     {"READ", "UPDATE", "INSERT", "SCAN", "DELETE", "READ-MODIFY-WRITE", "VERIFY"},
	"sysbench": {"EVENT"},
	"kv":       {"Read", "Write"},
}
