package cost

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"
)

// hoursPerMonth turns a GB-month price into an hourly one. It is the
// shortest month's (28 days): providers prorate by the month's hours, and
// dividing by the fewest keeps the hourly figure, and so the bound, an
// upper bound whichever month the run falls in.
const hoursPerMonth = 28 * 24

// Machines is a group of hosts of one type, each with the same data disks.
type Machines struct {
	Type  string // e.g. c5.4xlarge, n1-standard-16
	Count int
	// DiskKind is the data disks' kind as the price table names it (gp3,
	// instance-store, local-ssd); DiskCount and DiskGB are per host.
	DiskKind  string
	DiskCount int
	DiskGB    int
}

// Need is what a run would make.
type Need struct {
	Provider, Region string
	Machines         []Machines
}

// Line is one priced item of an estimate.
type Line struct {
	What     string  // "4 × c5.4xlarge", "8 × gp3 250 GB"
	Quantity float64 // machines, or GB of disk
	Price    Price
	Hourly   float64 // USD per hour for the whole line
}

// Estimate is a run's cost before it is made.
type Estimate struct {
	Provider, Region string
	Lines            []Line
	Hourly           float64 // USD per hour, all lines
	Lifetime         time.Duration
	UpperBound       float64 // Hourly × Lifetime in hours
	TableDate        string
}

// Excludes is what an estimate leaves out, said wherever it is shown.
var Excludes = []string{
	"tax",
	"data transfer",
	"public IPv4 addresses",
	"root and boot disks",
	"discounts (sustained or committed use, savings plans, spot)",
}

// NoPriceError lists the items the table has no price for, so that a
// max_cost can be refused with what is missing and the table's date.
type NoPriceError struct {
	Provider, Region string
	Items            []string
	TableDate        string
}

func (e *NoPriceError) Error() string {
	return fmt.Sprintf("no price for %s in %s %s (price table of %s)",
		strings.Join(e.Items, ", "), e.Provider, e.Region, e.TableDate)
}

// Estimate prices a run's machines and data disks for a lifetime. Every
// problem with n is reported at once; items without a price give a
// *NoPriceError listing all of them.
func (t Table) Estimate(n Need, lifetime time.Duration) (Estimate, error) {
	var errs []error
	if lifetime <= 0 {
		errs = append(errs, fmt.Errorf("lifetime %s: must be positive", lifetime))
	}
	for i, m := range n.Machines {
		if m.Type == "" || m.Count <= 0 {
			errs = append(errs, fmt.Errorf("machines[%d]: type %q, count %d: want a type and a positive count", i, m.Type, m.Count))
		}
		if m.DiskCount < 0 || m.DiskGB < 0 || (m.DiskCount > 0 && (m.DiskKind == "" || m.DiskGB == 0)) {
			errs = append(errs, fmt.Errorf("machines[%d]: disks %d × %d GB of kind %q: want a kind and a size for each disk", i, m.DiskCount, m.DiskGB, m.DiskKind))
		}
	}
	if len(errs) > 0 {
		return Estimate{}, fmt.Errorf("cost estimate: %w", errors.Join(errs...))
	}
	e := Estimate{Provider: n.Provider, Region: n.Region, Lifetime: lifetime, TableDate: t.Date}
	missing := &NoPriceError{Provider: n.Provider, Region: n.Region, TableDate: t.Date}
	add := func(item, what string, qty float64) {
		p, ok := t.lookup(n.Provider, n.Region, item)
		if !ok {
			if !slices.Contains(missing.Items, item) {
				missing.Items = append(missing.Items, item)
			}
			return
		}
		l := Line{What: what, Quantity: qty, Price: p}
		switch p.Unit {
		case PerHour:
			l.Hourly = qty * p.USD
		case PerGBMonth:
			l.Hourly = qty * p.USD / hoursPerMonth
		}
		e.Lines = append(e.Lines, l)
		e.Hourly += l.Hourly
	}
	for _, m := range n.Machines {
		add(m.Type, fmt.Sprintf("%d × %s", m.Count, m.Type), float64(m.Count))
		if m.DiskCount > 0 {
			disks := m.Count * m.DiskCount
			add(m.DiskKind, fmt.Sprintf("%d × %s %d GB", disks, m.DiskKind, m.DiskGB), float64(disks*m.DiskGB))
		}
	}
	if len(missing.Items) > 0 {
		return Estimate{}, missing
	}
	e.UpperBound = e.Hourly * lifetime.Hours()
	return e, nil
}

// Exceeds reports whether the upper bound is over maxUSD, compared in
// whole cents so that a bound printed as the limit is not refused.
func (e Estimate) Exceeds(maxUSD float64) bool {
	return math.Round(e.UpperBound*100) > math.Round(maxUSD*100)
}

// Text renders the estimate for `ybbench plan`: each line with its price
// and source, the hourly rate, the bound and what it leaves out.
func (e Estimate) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "cost (%s %s; list prices, on demand, USD; price table of %s):\n", e.Provider, e.Region, e.TableDate)
	for _, l := range e.Lines {
		price := fmt.Sprintf("%.4f/%s", l.Price.USD, l.Price.Unit)
		if l.Price.Unit == Included {
			price = "in the machine's price"
		}
		fmt.Fprintf(&b, "  %-28s %-22s %9.4f/hour  source: %s (%s)\n", l.What, price, l.Hourly, l.Price.Source, l.Price.SourceDate)
	}
	fmt.Fprintf(&b, "  hourly rate %.2f USD; upper bound %.2f USD for the lifetime of %s (rate × lifetime: the hosts power off at expiry)\n",
		e.Hourly, e.UpperBound, e.Lifetime)
	fmt.Fprintf(&b, "  excludes: %s\n", strings.Join(Excludes, ", "))
	return b.String()
}
