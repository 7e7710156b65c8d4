package profiles

import (
	"testing"
)

func TestBuiltInProfilesParse(t *testing.T) {
	all, err := All()
	if err != nil {
		t.Fatal(err)
	}
	p, err := Get("ycsb-ysql")
	if err != nil {
		t.Fatal(err)
	}
	if len(all) == 0 || p.Parameters.Records != 1_000_000 || p.Parameters.Threads != 256 || p.Parameters.LoadThreads != 32 {
		t.Errorf("ycsb-ysql: %+v", p.Parameters)
	}
	if len(p.Baseline.Rows) != 6 {
		t.Errorf("%d published rows", len(p.Baseline.Rows))
	}
	if _, err := Get("nope"); err == nil {
		t.Error("unknown profile accepted")
	}
}

// Seed 000's table satisfies Little's law (threads ÷ (throughput × mean)
// within 30 % of 1 on every row), so it may gate a release.
func TestSeed000TableIsSelfConsistent(t *testing.T) {
	p, _ := Get("ycsb-ysql")
	if ok, bad := p.Baseline.Consistent(LittlesLawTolerance); !ok {
		t.Errorf("inconsistent: %v", bad)
	}
	a := p.Baseline.Row("workloada")
	v, err := a.LittlesLaw(256)
	if err != nil || v < 0.95 || v > 1.05 {
		t.Errorf("workload A: %.3f %v (256 ÷ (37443 × 6.75 ms) = 1.01)", v, err)
	}
}

func TestStrictParsingNamesTheLine(t *testing.T) {
	_, err := Parse("bad.yaml", []byte("name: x\nfamily: ycsb\nworkloads: [a]\nthreadz: 4\n"))
	if err == nil || !contains(err.Error(), "bad.yaml") || !contains(err.Error(), "line 4") {
		t.Errorf("error %v", err)
	}
}

func contains(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return true
		}
	}
	return false
}

// Seeds 001/002 and 004 are self-consistent; seed 003 fails Little's law
// by 2× (throughput × latency ≈ 2 × 64 threads in every row) and so is
// shown, never gated.
func TestPublishedTablesConsistency(t *testing.T) {
	for name, want := range map[string]bool{"ycsb-ycql": true, "kv-ycql": true, "sysbench-ysql": false} {
		p, err := Get(name)
		if err != nil {
			t.Fatal(err)
		}
		ok, bad := p.Baseline.Consistent(LittlesLawTolerance)
		if ok != want {
			t.Errorf("%s: consistent %v (%v), want %v", name, ok, bad, want)
		}
	}
	p, _ := Get("sysbench-ysql")
	v, _ := p.Baseline.Row("oltp_point_select").LittlesLaw(64)
	if v < 0.45 || v > 0.56 {
		t.Errorf("oltp_point_select: 64 ÷ (95695 × 1.3 ms) = %.2f, want about 0.5", v)
	}
	kv, _ := Get("kv-ycql")
	if b, _ := kv.Baseline.Row("batch-write").LittlesLaw(256); b < 1.1 || b > 1.4 {
		t.Errorf("batch-write per batch: 64 ÷ (140000/25 × 9 ms) = %.2f, want about 1.27", b)
	}
}
