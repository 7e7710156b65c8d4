package gcp

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"cloud.google.com/go/compute/apiv1/computepb"
)

// The regional quotas a run draws on (Region.Quotas[].Metric). Every
// machine family's vCPUs count against CPUS; families with a quota of
// their own (N2_CPUS, C2_CPUS, …) against that too. N1 has none, so
// n1-standard-16's vCPUs count against CPUS alone (cloud.md §5: the
// metric enum has no N1 metric).
const (
	QuotaCPUs     = "CPUS"
	QuotaLocalSSD = "LOCAL_SSD_TOTAL_GB"
)

// QuotaError is a regional quota too small for the run: what it needs and
// what is free (limit − usage).
type QuotaError struct {
	Metric, Region     string
	Need               float64
	Free, Limit, InUse float64
}

func (e *QuotaError) Error() string {
	return fmt.Sprintf("quota %s in region %s is short: need %s, free %s (limit %s, in use %s); raise it on the console's Quotas page, or choose another region",
		e.Metric, e.Region, num(e.Need), num(e.Free), num(e.Limit), num(e.InUse))
}

// num prints a quota figure: whole numbers without decimals.
func num(v float64) string {
	if v == math.Trunc(v) {
		return fmt.Sprintf("%.0f", v)
	}
	return fmt.Sprintf("%g", v)
}

// quotaNeed is what the run needs of each regional quota: vCPUs of every
// host, by family where a family has its own metric, and the db hosts'
// local SSDs in GB.
func (f *facts) quotaNeed(region *computepb.Region) map[string]float64 {
	have := map[string]bool{}
	for _, q := range region.GetQuotas() {
		have[q.GetMetric()] = true
	}
	need := map[string]float64{}
	for _, h := range f.hosts() {
		cpus := float64(f.cpus[h.Type])
		need[QuotaCPUs] += cpus
		if fam := familyQuota(h.Type); have[fam] {
			need[fam] += cpus
		}
		need[QuotaLocalSSD] += float64(h.LocalSSDs * LocalSSDGB)
	}
	if need[QuotaLocalSSD] == 0 {
		delete(need, QuotaLocalSSD)
	}
	return need
}

// familyQuota is the name of a machine family's own vCPU quota
// (n2-standard-8 → N2_CPUS).
func familyQuota(machineType string) string {
	fam, _, _ := strings.Cut(machineType, "-")
	return strings.ToUpper(fam) + "_CPUS"
}

// checkQuotas compares the region's quotas with the run's need. A metric
// the region does not list is logged as unknown, not refused. With
// resumed, a shortfall is logged: the run's own hosts may hold the usage.
func (p *Provider) checkQuotas(k *checker, f *facts, region *computepb.Region, resumed bool) {
	quotas := map[string]*computepb.Quota{}
	for _, q := range region.GetQuotas() {
		quotas[q.GetMetric()] = q
	}
	need := f.quotaNeed(region)
	for _, metric := range slices.Sorted(maps.Keys(need)) {
		n := need[metric]
		q, ok := quotas[metric]
		if !ok {
			p.log.Warn("quota unknown: the region does not list it", "metric", metric, "region", f.region, "need", n)
			f.quotas = append(f.quotas, fmt.Sprintf("%s need %s, quota unknown", metric, num(n)))
			continue
		}
		free := q.GetLimit() - q.GetUsage()
		f.quotas = append(f.quotas, fmt.Sprintf("%s need %s, free %s of %s", metric, num(n), num(free), num(q.GetLimit())))
		if free >= n {
			continue
		}
		e := &QuotaError{Metric: metric, Region: f.region, Need: n, Free: free, Limit: q.GetLimit(), InUse: q.GetUsage()}
		if resumed {
			p.log.Warn("quota short of the whole run; its own hosts may hold the usage", "err", e)
			continue
		}
		k.infra = append(k.infra, e)
	}
}
