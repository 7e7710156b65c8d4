package report

import (
	"bytes"
	"encoding/csv"
	"strconv"
)

// CSVDir is the folder beside report.html that holds the CSV of every
// table and chart.
const CSVDir = "report-csv"

// CSV returns the CSV file of every table and chart of the page, by file
// name: a table as shown; a chart as one row per point (series, x, y),
// and its shaded spans as <chart>-bands.csv.
func (p *Page) CSV() (map[string][]byte, error) {
	out := map[string][]byte{}
	add := func(name string, rows [][]string) error {
		var b bytes.Buffer
		w := csv.NewWriter(&b)
		if err := w.WriteAll(rows); err != nil {
			return err
		}
		out[name+".csv"] = b.Bytes()
		return nil
	}
	table := func(t Table) error {
		if len(t.Rows) == 0 {
			return nil
		}
		return add(t.Name, append([][]string{t.Head}, t.Rows...))
	}
	if p.Verdict != nil {
		if err := table(p.Verdict.Gates); err != nil {
			return nil, err
		}
	}
	if err := table(p.Parameters); err != nil {
		return nil, err
	}
	for _, w := range p.Workloads {
		for _, t := range []Table{w.Spread, w.Published} {
			if err := table(t); err != nil {
				return nil, err
			}
		}
		for _, c := range w.Charts {
			if len(c.Series) > 0 {
				rows := [][]string{{"series", "x", "y"}}
				for _, s := range c.Series {
					for i := range s.X {
						rows = append(rows, []string{s.Name, num(s.X[i]), num(s.Y[i])})
					}
				}
				if err := add(c.ID, rows); err != nil {
					return nil, err
				}
			}
			if len(c.Bands) > 0 {
				rows := [][]string{{"span", "from_s", "to_s", "warmup"}}
				for _, b := range c.Bands {
					rows = append(rows, []string{b.Label, num(b.From), num(b.To), strconv.FormatBool(b.Warmup)})
				}
				if err := add(c.ID+"-bands", rows); err != nil {
					return nil, err
				}
			}
		}
	}
	return out, nil
}

// num writes a figure with the digits it has, no more.
func num(x float64) string { return strconv.FormatFloat(x, 'g', 8, 64) }
