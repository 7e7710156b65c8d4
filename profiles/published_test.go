package profiles

import (
	"bufio"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// testdata/seed-NNN-expected.txt are the seeds' "Expected results" tables,
// copied as they are published (lines starting with # are ours: where
// each comes from, and for seed 004 which workload each table is). Every
// number in them is compared with the profile that cites the seed.

// publishedRow is one workload's numbers, in the order the seed gives them.
type publishedRow struct {
	workload string
	numbers  []float64
}

// number matches a published figure: 37,443 · 1.5 · ~90k · 2.5-3.0 · 60%.
var number = regexp.MustCompile(`~?(\d[\d,]*(?:\.\d+)?)(?:-(\d+(?:\.\d+)?))?(k?)`)

// figures reads the numbers of a cell. A range (2.5-3.0) is its midpoint,
// the figure the profile compares with; "k" is thousands.
func figures(cell string) []float64 {
	var out []float64
	for _, m := range number.FindAllStringSubmatch(cell, -1) {
		v, _ := strconv.ParseFloat(strings.ReplaceAll(m[1], ",", ""), 64)
		if m[2] != "" {
			hi, _ := strconv.ParseFloat(m[2], 64)
			v = (v + hi) / 2
		}
		if m[3] == "k" {
			v *= 1000
		}
		out = append(out, v)
	}
	return out
}

// cells splits a table line (markdown or tab-separated).
func cells(line string) []string {
	sep := "|"
	if strings.Contains(line, "\t") {
		sep = "\t"
	}
	var out []string
	for _, c := range strings.Split(strings.Trim(strings.TrimSpace(line), "|"), sep) {
		out = append(out, strings.TrimSpace(c))
	}
	return out
}

// readPublished reads an excerpt. Tables with a row per workload (seeds
// 000–003) name it in the first cell ("Workload A", "OLTP_READ_ONLY");
// the key-value seed has a table per workload after a "## name" line,
// its figures one per row.
func readPublished(t *testing.T, path string) []publishedRow {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var rows []publishedRow
	section := ""
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "## "):
			section = strings.TrimPrefix(line, "## ")
			rows = append(rows, publishedRow{workload: section})
			continue
		case strings.HasPrefix(line, "#"), strings.TrimSpace(line) == "":
			continue
		}
		c := cells(line)
		if len(c) < 2 || strings.Trim(c[0], "-: ") == "" || c[0] == "Workload" || c[0] == "Name" {
			continue // header or separator
		}
		if section != "" {
			last := &rows[len(rows)-1]
			last.numbers = append(last.numbers, figures(strings.Join(c[1:], " "))...)
			continue
		}
		var nums []float64
		for _, cell := range c[1:] {
			nums = append(nums, figures(cell)...)
		}
		rows = append(rows, publishedRow{workload: strings.ToLower(strings.ReplaceAll(c[0], " ", "")), numbers: nums})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return rows
}

// profileNumbers are a profile row's numbers in the seed's order:
// throughput, then each distinct published latency (a sysbench row gives
// its one latency to the mean and the p95 columns), then CPU.
func profileNumbers(p *Profile, w string) []float64 {
	r := p.Baseline.Row(w)
	if r == nil {
		return nil
	}
	out := []float64{r.Throughput}
	for i, l := range r.Latencies {
		if i > 0 && p.Family == "sysbench" && l.MS == r.Latencies[0].MS {
			continue
		}
		out = append(out, l.MS)
	}
	if r.CPU > 0 {
		out = append(out, r.CPU)
	}
	return out
}

// Every number of every seed's published table is the profile's.
func TestPublishedTablesMatchTheSeeds(t *testing.T) {
	for _, c := range []struct{ profile, excerpt string }{
		{"ycsb-ysql", "seed-000-expected.txt"},
		{"ycsb-ycql", "seed-001-expected.txt"},
		{"ycsb-ycql", "seed-002-expected.txt"},
		{"sysbench-ysql", "seed-003-expected.txt"},
		{"kv-ycql", "seed-004-expected.txt"},
	} {
		t.Run(c.excerpt, func(t *testing.T) {
			p, err := Get(c.profile)
			if err != nil {
				t.Fatal(err)
			}
			seed := strings.TrimSuffix(strings.TrimPrefix(c.excerpt, "seed-"), "-expected.txt")
			if !strings.Contains(p.Seed, seed+"_") {
				t.Errorf("profile %s cites seed %s, not %s", p.Name, p.Seed, seed)
			}
			published := readPublished(t, "testdata/"+c.excerpt)
			if len(published) != len(p.Baseline.Rows) {
				t.Errorf("the seed publishes %d rows, profile %s has %d", len(published), p.Name, len(p.Baseline.Rows))
			}
			for _, row := range published {
				if len(row.numbers) == 0 {
					t.Errorf("%s: no figure read from the seed", row.workload)
				}
				if got := profileNumbers(p, row.workload); !slices.Equal(got, row.numbers) {
					t.Errorf("%s: profile %s has %v, the seed publishes %v", row.workload, p.Name, got, row.numbers)
				}
			}
		})
	}
}
