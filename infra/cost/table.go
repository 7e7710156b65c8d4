// Package cost estimates what a cloud run costs before anything is made:
// an hourly rate for the run's machines and data disks, from a dated,
// checked-in price table whose every row names its source, and an upper
// bound, that rate times the run's lifetime (after which the hosts power
// themselves off). It knows nothing of profiles or settings: the caller
// says what the run needs.
package cost

import (
	_ "embed"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
)

// Units a price is quoted in.
const (
	PerHour    = "hour"     // a machine, per hour
	PerGBMonth = "GB-month" // a disk, per GB and month
	Included   = "included" // part of its machine's price (instance store)
)

// Price is one row of the table.
type Price struct {
	Provider, Region, Item, Unit string
	USD                          float64
	// Source says where the figure comes from; SourceDate is that
	// source's date, or "undated".
	Source, SourceDate string
	line               int
}

// Table is the price table.
type Table struct {
	// Date is the day the table was last checked as a whole.
	Date   string
	Prices []Price
}

//go:embed prices.csv
var pricesCSV string

// Builtin returns the checked-in table (prices.csv).
func Builtin() (Table, error) { return Parse(strings.NewReader(pricesCSV), "prices.csv") }

// Parse reads a price table; every problem is reported with its line and
// field, all at once.
func Parse(r io.Reader, name string) (Table, error) {
	cr := csv.NewReader(r)
	cr.Comment = '#'
	cr.FieldsPerRecord = -1
	var t Table
	var errs []error
	seen := map[string]int{}
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		line, _ := cr.FieldPos(0)
		if err != nil {
			return Table{}, fmt.Errorf("%s: %w", name, err)
		}
		if rec[0] == "table_date" {
			if len(rec) != 2 || !isDate(rec[1]) {
				errs = append(errs, fmt.Errorf("%s:%d: table_date: want one YYYY-MM-DD", name, line))
			}
			t.Date = rec[len(rec)-1]
			continue
		}
		p, perr := parseRow(rec, line)
		if perr != nil {
			errs = append(errs, fmt.Errorf("%s:%d: %w", name, line, perr))
			continue
		}
		k := p.key()
		if first, dup := seen[k]; dup {
			errs = append(errs, fmt.Errorf("%s:%d: %s %s %s priced again (first on line %d)", name, line, p.Provider, p.Region, p.Item, first))
			continue
		}
		seen[k] = line
		t.Prices = append(t.Prices, p)
	}
	if t.Date == "" {
		errs = append(errs, fmt.Errorf("%s: no table_date line", name))
	}
	if len(errs) > 0 {
		return Table{}, errors.Join(errs...)
	}
	return t, nil
}

// parseRow reads provider,region,item,unit,usd,source,source_date.
func parseRow(rec []string, line int) (Price, error) {
	if len(rec) != 7 {
		return Price{}, fmt.Errorf("%d fields, want 7 (provider,region,item,unit,usd,source,source_date)", len(rec))
	}
	p := Price{Provider: rec[0], Region: rec[1], Item: rec[2], Unit: rec[3], Source: rec[5], SourceDate: rec[6], line: line}
	var errs []error
	if p.Provider != "aws" && p.Provider != "gcp" {
		errs = append(errs, fmt.Errorf("provider %q: want aws or gcp", p.Provider))
	}
	if p.Region == "" || p.Item == "" {
		errs = append(errs, errors.New("region and item must not be empty"))
	}
	if p.Unit != PerHour && p.Unit != PerGBMonth && p.Unit != Included {
		errs = append(errs, fmt.Errorf("unit %q: want %s, %s or %s", p.Unit, PerHour, PerGBMonth, Included))
	}
	usd, err := strconv.ParseFloat(rec[4], 64)
	switch {
	case err != nil || usd < 0:
		errs = append(errs, fmt.Errorf("usd %q: want a number of dollars, 0 or more", rec[4]))
	case p.Unit == Included && usd != 0:
		errs = append(errs, fmt.Errorf("usd %q: an included item costs 0", rec[4]))
	}
	p.USD = usd
	if strings.TrimSpace(p.Source) == "" {
		errs = append(errs, errors.New("source: empty; a price needs its source"))
	}
	if p.SourceDate != "undated" && !isDate(p.SourceDate) {
		errs = append(errs, fmt.Errorf("source_date %q: want YYYY-MM-DD or undated", p.SourceDate))
	}
	return p, errors.Join(errs...)
}

func (p Price) key() string { return p.Provider + "\x00" + p.Region + "\x00" + p.Item }

func isDate(s string) bool {
	_, err := time.Parse(time.DateOnly, s)
	return err == nil
}

// lookup finds the price of item in a region: the region's own row, else
// a row for every region ("*").
func (t Table) lookup(provider, region, item string) (Price, bool) {
	var any Price
	found := false
	for _, p := range t.Prices {
		if p.Provider != provider || p.Item != item {
			continue
		}
		if p.Region == region {
			return p, true
		}
		if p.Region == "*" {
			any, found = p, true
		}
	}
	return any, found
}
