package changepoint

import (
	"encoding/csv"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
)

// readColumns reads a testdata CSV: '#' comment lines (the data's source
// and licence), a header, then numbers; the columns in header order.
func readColumns(t *testing.T, name string) (header []string, cols [][]float64) {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := csv.NewReader(f)
	r.Comment = '#'
	rows, err := r.ReadAll()
	if err != nil || len(rows) < 2 {
		t.Fatalf("%s: %d rows, %v", name, len(rows), err)
	}
	header = rows[0]
	cols = make([][]float64, len(header))
	for _, row := range rows[1:] {
		for i, cell := range row {
			v, err := strconv.ParseFloat(cell, 64)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			cols[i] = append(cols[i], v)
		}
	}
	return header, cols
}

func indices(cps []ChangePoint) []int {
	out := []int{}
	for _, c := range cps {
		out = append(out, c.Index)
	}
	return out
}

// TigerBeetle's series (testdata/tigerbeetle.csv) with the settings of
// Otava's tests that name change points at a magnitude of 5%: this
// package's method, with its own MinSegment and outlier guard, finds the
// two level shifts Otava's tests state, and not the one-run drop at 10.
func TestTigerBeetleShiftsAsOtavaStates(t *testing.T) {
	_, cols := readColumns(t, "tigerbeetle.csv")
	series := cols[0]
	if len(series) != 365 {
		t.Fatalf("read %d points, want Otava's 365", len(series))
	}
	for _, p := range []float64{0.01, 0.05} {
		cps, err := Detect(series, Settings{Window: 30, PValue: p, MinMagnitude: 0.05})
		if err != nil {
			t.Fatal(err)
		}
		if got, want := indices(cps), []int{15, 71}; !slices.Equal(got, want) {
			t.Errorf("p %g: change points %v, Otava's tests state %v", p, got, want)
		}
		for _, c := range cps {
			t.Logf("p %g: change point at %d: %.0f → %.0f (%+.1f%%, 95%% CI %+.1f%% to %+.1f%%), p-value %.2g",
				p, c.Index, c.MeanBefore, c.MeanAfter, 100*c.Change, 100*c.ChangeLow, 100*c.ChangeHigh, c.PValue)
		}
	}
}

// With Otava's two departures from the method switched on (population
// variances; kappa varied; its choice of neighbours to re-test; no
// outlier guard) and Hunter's MinSegment of 1, every list of change
// points that Otava's TigerBeetle tests state comes out exactly: this is
// Otava's algorithm, and the differences of the defaults are only the
// documented ones.
func TestTigerBeetleReproducesOtavaExactly(t *testing.T) {
	_, cols := readColumns(t, "tigerbeetle.csv")
	cases := []struct {
		p, magnitude float64
		want         []int
	}{
		{0.01, 0.05, []int{15, 71}},
		{0.05, 0.05, []int{15, 71}},
		{0.1, 0.05, []int{10, 11, 15, 71, 363}},
		{0.2, 0.05, []int{10, 11, 15, 71}},
		{0.2, 0, []int{3, 6, 7, 10, 11, 13, 15, 16, 28, 29, 35, 37, 39, 41, 44, 48, 49, 56, 58, 61, 65, 66, 69, 71, 74, 76,
			82, 95, 108, 117, 125, 126, 129, 131, 136, 137, 142, 148, 165, 169, 187, 190, 192, 197, 200, 212, 220, 241, 243,
			246, 247, 249, 250, 260, 265, 266, 268, 278, 282, 288, 305, 306, 325, 330, 337, 338, 340, 347, 349, 363}},
		{0.1, 0, []int{3, 6, 10, 11, 15, 16, 28, 29, 35, 37, 39, 41, 44, 48, 49, 61, 71, 95, 117, 131, 142, 148, 165, 169,
			192, 206, 212, 260, 265, 268, 278, 282, 288, 305, 363}},
		{0.01, 0, []int{15, 26, 61, 71, 95, 117, 131, 142, 148, 165, 169, 192, 212, 260}},
		{0.001, 0, []int{15, 61, 71, 95, 117, 131, 142, 148, 192, 212, 260}},
		{0.0001, 0, []int{71, 95, 117, 131, 142, 148, 192, 212}},
		{0.00001, 0, []int{71, 95, 131, 192, 212}},
	}
	for _, c := range cases {
		s := Settings{Window: 30, PValue: c.p, MinMagnitude: c.magnitude, MinSegment: 1, otavaQuirks: true}
		cps, err := Detect(cols[0], s)
		if err != nil {
			t.Fatal(err)
		}
		if got := indices(cps); !slices.Equal(got, c.want) {
			t.Errorf("p %g, magnitude %g: %v, Otava's test states %v", c.p, c.magnitude, got, c.want)
		}
	}
}

// Otava's documented CSV example (testdata/otava_csv_example.csv) with
// the default settings: metric2's 12.9% drop at index 6, as the
// documentation prints it, and nothing in metric1.
func TestOtavaCSVExample(t *testing.T) {
	header, cols := readColumns(t, "otava_csv_example.csv")
	want := map[string][]int{"metric1": {}, "metric2": {6}}
	for i, name := range header {
		cps, err := Detect(cols[i], Settings{})
		if err != nil {
			t.Fatal(err)
		}
		if got := indices(cps); !slices.Equal(got, want[name]) {
			t.Errorf("%s: change points %v, Otava's documentation shows %v", name, got, want[name])
		}
		for _, c := range cps {
			if pct := math.Round(1000*c.Change) / 10; pct != -12.9 {
				t.Errorf("%s at %d: change %.1f%%, the documentation prints -12.9%%", name, c.Index, pct)
			}
		}
	}
}

// The two unit-test series of Otava's own tests, with the settings and
// change points those tests state: tests/analysis_test.py
// (test_single_series: window 10, p 0.0001 → [10]) and
// tests/change_point_divisive_test.py (SEQUENCE, the t-test detector at
// p 0.01 → [5, 8]), github.com/apache/otava at commit 1ceb153 (Apache
// License 2.0).
func TestOtavaUnitSeries(t *testing.T) {
	single := []float64{1.02, 0.95, 0.99, 1.00, 1.12, 1.00, 1.01, 0.98, 1.01, 0.96,
		0.50, 0.51, 0.48, 0.48, 0.55, 0.50, 0.49, 0.51, 0.50, 0.49}
	sequence := []float64{0.3, 2.4, 1.5, -0.9, -0.5, 99.7, 98.3, 99.1, 149.0, 149.7, 149.5, 149.1, 148.8, 150.0}
	cases := []struct {
		name   string
		values []float64
		s      Settings
		want   []int
	}{
		{"single series", single, Settings{Window: 10, PValue: 0.0001}, []int{10}},
		{"single series, Otava's way", single, Settings{Window: 10, PValue: 0.0001, MinSegment: 1, otavaQuirks: true}, []int{10}},
		{"SEQUENCE", sequence, Settings{PValue: 0.01}, []int{5, 8}},
		{"SEQUENCE, Otava's way", sequence, Settings{PValue: 0.01, MinSegment: 1, otavaQuirks: true}, []int{5, 8}},
	}
	for _, c := range cases {
		cps, err := Detect(c.values, c.s)
		if err != nil {
			t.Fatal(err)
		}
		if got := indices(cps); !slices.Equal(got, c.want) {
			t.Errorf("%s: %v, Otava's test states %v", c.name, got, c.want)
		}
	}
}
