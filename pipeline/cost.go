package pipeline

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/ybbench/ybbench/infra"
	"github.com/ybbench/ybbench/infra/cost"
)

// A cloud run's cost: estimated before anything is made (plan, the
// max_cost check, the up step's record), and reckoned at teardown from the
// hours its hosts lived. Both price what the run asks the provider for
// with the checked-in table (infra/cost).

// priceTable is the checked-in price table, read once.
var priceTable = sync.OnceValues(cost.Builtin)

// estimate prices a cloud cluster spec for its lifetime.
func estimate(spec infra.ClusterSpec, provider string) (cost.Estimate, error) {
	t, err := priceTable()
	if err != nil {
		return cost.Estimate{}, fmt.Errorf("the price table: %w", err)
	}
	return t.Estimate(need(spec, provider), spec.Lifetime)
}

// need is what a cluster spec asks for, as the price table counts it: the
// db hosts with their data disks, and the clients.
func need(spec infra.ClusterSpec, provider string) cost.Need {
	n := cost.Need{Provider: provider, Region: spec.Region, Machines: []cost.Machines{{Type: spec.InstanceType, Count: spec.DBHosts,
		DiskKind: spec.Disks.Kind, DiskCount: spec.Disks.Count, DiskGB: spec.Disks.SizeGB}}}
	if spec.ClientHosts > 0 {
		n.Machines = append(n.Machines, cost.Machines{Type: spec.ClientType, Count: spec.ClientHosts})
	}
	return n
}

// PlanCost is a cloud run's estimate as `ybbench plan` shows it.
type PlanCost struct {
	Provider string `json:"provider"`
	Region   string `json:"region"`
	// Lines are the priced items (none when an item has no price).
	Lines []PlanCostLine `json:"lines"`
	// HourlyUSD and UpperBoundUSD (hourly × lifetime) are absent when the
	// table has no price for an item (NoPriceFor lists them).
	HourlyUSD     *float64 `json:"hourly_usd,omitempty"`
	UpperBoundUSD *float64 `json:"upper_bound_usd,omitempty"`
	Lifetime      string   `json:"lifetime"`
	// MaxCostUSD is the run's max_cost, when given (the bound is within
	// it: a plan over it is refused).
	MaxCostUSD *float64 `json:"max_cost_usd,omitempty"`
	NoPriceFor []string `json:"no_price_for,omitempty"`
	TableDate  string   `json:"price_table_date"`
	Excludes   []string `json:"excludes"`
	// Text is the estimate as the text plan prints it.
	Text string `json:"-"`
}

// PlanCostLine is one priced item: its price per unit and its source.
type PlanCostLine struct {
	What       string  `json:"what"`
	USD        float64 `json:"usd"`
	Unit       string  `json:"unit"`
	HourlyUSD  float64 `json:"hourly_usd"`
	Source     string  `json:"source"`
	SourceDate string  `json:"source_date"`
}

// planCost is the plan's estimate of a cloud cluster spec; an item
// without a price is said, not an error (max_cost, when given, was
// refused for it already).
func planCost(spec infra.ClusterSpec, provider string, maxCost *float64) (*PlanCost, error) {
	e, err := estimate(spec, provider)
	pc := &PlanCost{Provider: provider, Region: spec.Region, Lines: []PlanCostLine{}, Lifetime: spec.Lifetime.String(),
		MaxCostUSD: maxCost, Excludes: cost.Excludes}
	var np *cost.NoPriceError
	switch {
	case errors.As(err, &np):
		pc.NoPriceFor, pc.TableDate = np.Items, np.TableDate
		pc.Text = fmt.Sprintf("cost: unknown: %v\n  excludes: %s\n", np, strings.Join(cost.Excludes, ", "))
		return pc, nil
	case err != nil:
		return nil, err
	}
	for _, l := range e.Lines {
		pc.Lines = append(pc.Lines, PlanCostLine{What: l.What, USD: l.Price.USD, Unit: l.Price.Unit, HourlyUSD: l.Hourly,
			Source: l.Price.Source, SourceDate: l.Price.SourceDate})
	}
	pc.HourlyUSD, pc.UpperBoundUSD, pc.TableDate, pc.Text = &e.Hourly, &e.UpperBound, e.TableDate, e.Text()
	if maxCost != nil {
		pc.Text += fmt.Sprintf("  max_cost %.2f USD: the upper bound is within it\n", *maxCost)
	}
	return pc, nil
}

// estimateDetails are what the up step records of a cloud run's estimate.
func estimateDetails(spec infra.ClusterSpec, provider string) map[string]string {
	e, err := estimate(spec, provider)
	if err != nil {
		return map[string]string{"cost_estimate": "none: " + err.Error()}
	}
	return map[string]string{
		"cost_hourly_usd":      fmt.Sprintf("%.2f", e.Hourly),
		"cost_upper_bound_usd": fmt.Sprintf("%.2f", e.UpperBound),
		"price_table_date":     e.TableDate,
	}
}

// usageDetails are what the down step records of a cloud run's hosts:
// the hours from their creation to their destruction (to now, when
// resources remain), and that figure priced at the estimate's hourly rate.
func usageDetails(spec infra.ClusterSpec, provider string, created, ended time.Time, remain bool) map[string]string {
	hours := ended.Sub(created).Hours()
	d := map[string]string{"hours_used": fmt.Sprintf("%.2f", hours)}
	if remain {
		d["hours_used"] += " (resources remain: their cost goes on until they are removed)"
	}
	e, err := estimate(spec, provider)
	if err != nil {
		d["cost_used"] = "unknown: " + err.Error()
		return d
	}
	d["cost_used_usd"] = fmt.Sprintf("%.2f", hours*e.Hourly)
	d["cost_used_basis"] = fmt.Sprintf("%.2f h × %.2f USD an hour (price table of %s; excludes %s)",
		hours, e.Hourly, e.TableDate, strings.Join(cost.Excludes, ", "))
	return d
}
