package profiles

import "testing"

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
	if ok, bad := p.Baseline.Consistent(0.3); !ok {
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
