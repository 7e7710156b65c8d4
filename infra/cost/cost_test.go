package cost

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/ybbench/ybbench/internal/golden"
)

func builtin(t *testing.T) Table {
	t.Helper()
	tab, err := Builtin()
	if err != nil {
		t.Fatal(err)
	}
	return tab
}

// TestBuiltinTable checks the checked-in table against the figures of the
// cloud spec's price section (cloud.md §7), row by row, and that every
// row says where it comes from.
func TestBuiltinTable(t *testing.T) {
	tab := builtin(t)
	if tab.Date != "2026-12-01" {
		t.Errorf("table date %q", tab.Date)
	}
	for _, want := range []struct {
		provider, region, item, unit string
		usd                          float64
		date                         string
	}{
		{"aws", "us-east-1", "c5.4xlarge", PerHour, 0.680, "2026-01-19"},
		{"aws", "us-east-1", "i3.4xlarge", PerHour, 1.248, "2026-01-19"},
		{"aws", "us-west-2", "c5.4xlarge", PerHour, 0.680, "2018-09-05"},
		{"aws", "us-west-2", "i3.4xlarge", PerHour, 1.248, "2018-09-05"},
		{"aws", "us-east-1", "gp3", PerGBMonth, 0.08, "undated"},
		{"aws", "eu-west-1", "instance-store", Included, 0, "undated"},
		{"gcp", "us-central1", "n1-standard-16", PerHour, 0.76, "undated"},
		{"gcp", "us-central1", "local-ssd", PerGBMonth, 0.08, "undated"},
	} {
		p, ok := tab.lookup(want.provider, want.region, want.item)
		if !ok {
			t.Errorf("no price for %s %s %s", want.provider, want.region, want.item)
			continue
		}
		if p.USD != want.usd || p.Unit != want.unit || p.SourceDate != want.date {
			t.Errorf("%s %s %s: %v/%s of %s, want %v/%s of %s", want.provider, want.region, want.item,
				p.USD, p.Unit, p.SourceDate, want.usd, want.unit, want.date)
		}
	}
	for _, p := range tab.Prices {
		if len(p.Source) < 10 {
			t.Errorf("line %d: source %q says too little", p.line, p.Source)
		}
	}
	if _, ok := tab.lookup("aws", "eu-west-1", "c5.4xlarge"); ok {
		t.Error("a machine price for a region the table does not have")
	}
}

func TestParseRefuses(t *testing.T) {
	const table = `# a comment
table_date,2026-13-01
aws,us-east-1,c5.4xlarge,hour,0.68,src,2026-01-19
aws,us-east-1,c5.4xlarge,hour,0.70,src,2026-01-19
azure,x,y,hour,1,src,undated
aws,us-east-1,gp3,GB-year,abc,,yesterday
aws,us-east-1,io2,hour,0.1,src
aws,*,instance-store,included,0.5,src,undated
`
	_, err := Parse(strings.NewReader(table), "bad.csv")
	if err == nil {
		t.Fatal("accepted")
	}
	for _, want := range []string{
		"bad.csv:2: table_date",
		"bad.csv:4: aws us-east-1 c5.4xlarge priced again (first on line 3)",
		`bad.csv:5: provider "azure"`,
		`bad.csv:6: unit "GB-year"`, `usd "abc"`, "source: empty", `source_date "yesterday"`,
		"bad.csv:7: 6 fields, want 7",
		`bad.csv:8: usd "0.5": an included item costs 0`,
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error does not say %q:\n%v", want, err)
		}
	}
	if _, err := Parse(strings.NewReader("aws,r,i,hour,1,src,undated\n"), "nodate.csv"); err == nil || !strings.Contains(err.Error(), "nodate.csv: no table_date") {
		t.Errorf("a table without a date: %v", err)
	}
}

// needs are the three clusters: 3 db hosts and a client of the
// same type, the db hosts with two data disks each.
var needs = map[string]Need{
	"aws-c5": {Provider: "aws", Region: "us-east-1", Machines: []Machines{
		{Type: "c5.4xlarge", Count: 3, DiskKind: "gp3", DiskCount: 2, DiskGB: 250},
		{Type: "c5.4xlarge", Count: 1},
	}},
	"aws-i3": {Provider: "aws", Region: "us-west-2", Machines: []Machines{
		{Type: "i3.4xlarge", Count: 3, DiskKind: "instance-store", DiskCount: 2, DiskGB: 1900},
		{Type: "i3.4xlarge", Count: 1},
	}},
	"gcp-n1": {Provider: "gcp", Region: "us-central1", Machines: []Machines{
		{Type: "n1-standard-16", Count: 3, DiskKind: "local-ssd", DiskCount: 2, DiskGB: 375},
		{Type: "n1-standard-16", Count: 1},
	}},
}

func TestEstimate(t *testing.T) {
	tab := builtin(t)
	const lifetime = 6 * time.Hour
	// Worked by hand: machines × hourly price, plus GB × GB-month price
	// over a 28-day month (672 hours).
	for name, want := range map[string]float64{
		"aws-c5": 4*0.68 + 1500*0.08/672, // 2.72 + 0.1786
		"aws-i3": 4 * 1.248,              // instance store included
		"gcp-n1": 4*0.76 + 2250*0.08/672, // 3.04 + 0.2679
	} {
		t.Run(name, func(t *testing.T) {
			e, err := tab.Estimate(needs[name], lifetime)
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(e.Hourly-want) > 1e-9 {
				t.Errorf("hourly %.6f, want %.6f", e.Hourly, want)
			}
			if math.Abs(e.UpperBound-want*6) > 1e-9 {
				t.Errorf("upper bound %.6f, want %.6f", e.UpperBound, want*6)
			}
			golden.Check(t, name+".txt", []byte(e.Text()))
		})
	}
}

func TestEstimateNoPrice(t *testing.T) {
	n := needs["aws-c5"]
	n.Region = "eu-west-1"
	_, err := builtin(t).Estimate(n, time.Hour)
	var np *NoPriceError
	if !errors.As(err, &np) {
		t.Fatalf("err = %v, want a *NoPriceError", err)
	}
	if strings.Join(np.Items, ",") != "c5.4xlarge,gp3" || np.TableDate != "2026-12-01" {
		t.Errorf("missing %v (table %s)", np.Items, np.TableDate)
	}
	if !strings.Contains(err.Error(), "aws eu-west-1") || !strings.Contains(err.Error(), "price table of 2026-12-01") {
		t.Errorf("message %q does not name the region and the table's date", err)
	}
}

func TestEstimateRefuses(t *testing.T) {
	n := Need{Provider: "aws", Region: "us-east-1", Machines: []Machines{
		{Type: "", Count: 1},
		{Type: "c5.4xlarge", Count: 0},
		{Type: "c5.4xlarge", Count: 1, DiskCount: 2},
	}}
	_, err := builtin(t).Estimate(n, 0)
	if err == nil {
		t.Fatal("accepted")
	}
	for _, want := range []string{"lifetime 0s", "machines[0]", "machines[1]", "machines[2]: disks 2 × 0 GB"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error does not name %q: %v", want, err)
		}
	}
}

func TestExceeds(t *testing.T) {
	e := Estimate{UpperBound: 17.391428}
	for max, want := range map[float64]bool{17.39: false, 17.40: false, 17.38: true, 0: true, 100: false} {
		if got := e.Exceeds(max); got != want {
			t.Errorf("bound 17.39 over max_cost %.2f: %v, want %v", max, got, want)
		}
	}
}
