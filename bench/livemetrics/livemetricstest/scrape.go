// Package livemetricstest scrapes an agent's live metrics for tests, as
// Prometheus would: an HTTP GET of /metrics in the text format, parsed by
// Prometheus's own parser (expfmt), so that a test checks what a real
// scraper reads rather than the collector's own view of itself.
package livemetricstest

import (
	"context"
	"fmt"
	"net/http"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// Families are one scrape's metric families by name.
type Families map[string]*dto.MetricFamily

// Scrape reads http://addr/metrics once.
func Scrape(ctx context.Context, addr string) (Families, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+addr+"/metrics", nil)
	if err != nil {
		return nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, fmt.Errorf("scrape %s: %w", addr, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("scrape %s: %s", addr, resp.Status)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(resp.Body)
	if err != nil {
		return nil, fmt.Errorf("scrape %s: parse: %w", addr, err)
	}
	return fams, nil
}

// Until scrapes every 20 ms until ok holds for a scrape, which it returns,
// or ctx ends (the last error or scrape said in the error). A scrape that
// fails is tried again: the agent may not listen yet.
func Until(ctx context.Context, addr string, ok func(Families) bool) (Families, error) {
	var last error
	for {
		fams, err := Scrape(ctx, addr)
		if err == nil && ok(fams) {
			return fams, nil
		}
		if err != nil {
			last = err
		} else {
			last = fmt.Errorf("condition not met; last scrape: phase %s", fams.Phase())
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("%w: %v", ctx.Err(), last)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// Value is the counter or gauge name whose labels include the given
// name, value pairs; ok is false when there is no such series.
func (f Families) Value(name string, labels ...string) (v float64, ok bool) {
	m := f.find(name, labels)
	switch {
	case m == nil:
		return 0, false
	case m.Counter != nil:
		return m.Counter.GetValue(), true
	case m.Gauge != nil:
		return m.Gauge.GetValue(), true
	case m.Untyped != nil:
		return m.Untyped.GetValue(), true
	}
	return 0, false
}

// Histogram is the histogram name with the given labels (nil: none).
func (f Families) Histogram(name string, labels ...string) *dto.Histogram {
	if m := f.find(name, labels); m != nil {
		return m.Histogram
	}
	return nil
}

// Phase is the phase whose ybload_phase series is 1 ("" when none is).
func (f Families) Phase() string {
	fam := f["ybload_phase"]
	if fam == nil {
		return ""
	}
	for _, m := range fam.Metric {
		if m.GetGauge().GetValue() == 1 {
			for _, l := range m.Label {
				if l.GetName() == "phase" {
					return l.GetValue()
				}
			}
		}
	}
	return ""
}

func (f Families) find(name string, labels []string) *dto.Metric {
	fam := f[name]
	if fam == nil {
		return nil
	}
	for _, m := range fam.Metric {
		if hasLabels(m, labels) {
			return m
		}
	}
	return nil
}

func hasLabels(m *dto.Metric, pairs []string) bool {
	for i := 0; i+1 < len(pairs); i += 2 {
		found := false
		for _, l := range m.Label {
			found = found || (l.GetName() == pairs[i] && l.GetValue() == pairs[i+1])
		}
		if !found {
			return false
		}
	}
	return true
}

// CumulativeAt is the histogram's count at the bucket whose upper bound
// is le (seconds), and whether there is one.
func CumulativeAt(h *dto.Histogram, le float64) (uint64, bool) {
	for _, b := range h.GetBucket() {
		if b.GetUpperBound() == le {
			return b.GetCumulativeCount(), true
		}
	}
	return 0, false
}
