package main

import (
	"os"
	"path/filepath"
	"testing"
)

func TestGoalOf(t *testing.T) {
	for _, c := range []struct {
		name    string
		y, p    []float64
		bound   float64
		atLeast bool
		want    string
	}{
		{"lower CPU, ranges apart", []float64{8, 9, 8.5}, []float64{10, 11, 12}, 0.9, false, "met"},
		{"lower CPU median, ranges touch", []float64{8, 9, 10}, []float64{10, 11, 12}, 0.9, false, "median meets it, ranges overlap"},
		{"higher CPU, ranges overlap", []float64{10, 11, 12}, []float64{9, 10, 11}, 0.9, false, "not met, ranges overlap"},
		{"higher CPU, ranges apart", []float64{20, 21}, []float64{10, 11}, 0.9, false, "not met, ranges apart"},
		// at least: tps 1.05× with ranges apart meets ≥ 1.0.
		{"more tps, ranges apart", []float64{105, 106, 107}, []float64{100, 101, 100.5}, 1.0, true, "met"},
		{"less tps, ranges apart", []float64{90, 91}, []float64{100, 101}, 1.0, true, "not met, ranges apart"},
		// the upper of two middles, as median's: 0.9 exactly meets ≤ 0.9.
		{"even count, upper middle", []float64{8, 9}, []float64{10, 10}, 0.9, false, "met"},
	} {
		if got := goalOf(c.y, c.p, c.bound, c.atLeast); got != c.want {
			t.Errorf("%s: goalOf(%v, %v, %v, %v) = %q, want %q", c.name, c.y, c.p, c.bound, c.atLeast, got, c.want)
		}
	}
}

func TestIntList(t *testing.T) {
	got, err := intList("sysbench-threads", "16, 64")
	if err != nil || len(got) != 2 || got[0] != 16 || got[1] != 64 {
		t.Fatalf("intList(16, 64) = %v, %v", got, err)
	}
	for _, bad := range []string{"", "16,", "0", "x", "16,-1"} {
		if _, err := intList("sysbench-threads", bad); err == nil {
			t.Errorf("intList(%q): no error", bad)
		}
	}
}

func TestPostmasterPID(t *testing.T) {
	dir := t.TempDir()
	// postmaster.pid's layout: the pid, then the data directory, start time, port...
	if err := os.WriteFile(filepath.Join(dir, "postmaster.pid"), []byte("24244\n/data\n1764630000\n25586\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if pid, err := postmasterPID(dir); err != nil || pid != 24244 {
		t.Fatalf("postmasterPID = %d, %v; want 24244", pid, err)
	}
	os.WriteFile(filepath.Join(dir, "postmaster.pid"), []byte("garbage\n"), 0o600)
	if _, err := postmasterPID(dir); err == nil {
		t.Error("postmasterPID of a garbled file: no error")
	}
}
