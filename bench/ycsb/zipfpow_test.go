package ycsb

import (
	"bufio"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"
)

// The power in a Zipfian draw against correctly rounded powers computed
// with 120-bit arithmetic (testdata/zipfpow/generate.py): near them, and on
// the draws where math.Pow lands on another key, on the same key as they.
func TestZipfPowIsNearTheExactPower(t *testing.T) {
	f, err := os.Open("testdata/zipfpow/cases.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	hexes := func(line string) (a, b float64) {
		t.Helper()
		fs := strings.Fields(line)
		if len(fs) != 2 {
			t.Fatalf("cases.txt: %q: want two hex floats", line)
		}
		var err1, err2 error
		a, err1 = strconv.ParseFloat(fs[0], 64)
		b, err2 = strconv.ParseFloat(fs[1], 64)
		if err1 != nil || err2 != nil {
			t.Fatalf("cases.txt: %q: %v %v", line, err1, err2)
		}
		return a, b
	}
	if !sc.Scan() {
		t.Fatal("cases.txt is empty")
	}
	alpha, items := hexes(sc.Text())
	theta := ZipfianConstant // a variable: float64 arithmetic, as NewZipfian's
	if want := 1 / (1 - theta); alpha != want {
		t.Fatalf("cases.txt's alpha %v, the generator's %v", alpha, want)
	}
	n := 0
	for sc.Scan() {
		x, exact := hexes(sc.Text())
		got := zipfPow(x, alpha)
		if ulps := math.Abs(got-exact) / ulp(exact); ulps > 32 {
			t.Errorf("x=%v: %v is %.0f ulps from %v (want ≤ 32)", x, got, ulps, exact)
		}
		// The first 11 cases are draws where math.Pow truncates to another key.
		if n < 11 {
			if k, want := int64(items*got), int64(items*exact); k != want {
				t.Errorf("x=%v: key number %d, the exact power's %d", x, k, want)
			}
		}
		n++
	}
	if n != 211 {
		t.Fatalf("read %d cases, want 211", n)
	}
}

// ulp is the spacing of doubles at x (x > 0).
func ulp(x float64) float64 { return math.Nextafter(x, math.Inf(1)) - x }
