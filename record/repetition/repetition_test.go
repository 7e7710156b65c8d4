package repetition

import "testing"

func TestNames(t *testing.T) {
	for _, c := range []struct {
		workload string
		k, n     int
		stem     string
		label    string
	}{
		{"workloada", 0, 1, "workloada", ""},
		{"workloada", 1, 3, "workloada-r1", "r1/3"},
		{"oltp_read_write", 12, 100, "oltp_read_write-r12", "r12/100"},
		{"CassandraKeyValue", 1, 1, "CassandraKeyValue-r1", ""},
	} {
		if got := Stem(c.workload, c.k); got != c.stem {
			t.Errorf("Stem(%q, %d) = %q, want %q", c.workload, c.k, got, c.stem)
		}
		if got := Label(c.k, c.n); got != c.label {
			t.Errorf("Label(%d, %d) = %q, want %q", c.k, c.n, got, c.label)
		}
	}
}

func TestNumbers(t *testing.T) {
	for n, want := range map[int][]int{0: {0}, 1: {0}, 2: {1, 2}, 3: {1, 2, 3}} {
		got := Numbers(n)
		if len(got) != len(want) {
			t.Errorf("Numbers(%d) = %v, want %v", n, got, want)
			continue
		}
		for i := range got {
			if got[i] != want[i] {
				t.Errorf("Numbers(%d) = %v, want %v", n, got, want)
			}
		}
	}
}
