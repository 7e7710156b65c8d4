package collect

// The reproduction verdict: for each row of the published table, whether
// this run reproduced it, did not, or cannot say (and every reason why).

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/ybbench/ybbench/collect/bottleneck"
)

// The reproduction verdict's statuses.
const (
	Reproduced    = "reproduced"
	NotReproduced = "not reproduced"
	NotComparable = "not comparable"
)

// The defaults a profile's table uses unless it says otherwise: five
// repetitions (as SPEC Cloud asks of a run) and a 5% tolerance.
const (
	DefaultRepetitions = 5
	DefaultTolerance   = 5.0
)

// Reproduction is the verdict on every published row, and the rule used.
type Reproduction struct {
	// Summary is the line both reports and verdict.json open with.
	Summary string `json:"summary"`
	// Rule is the rule, as the reports print it beside the table.
	Rule        string          `json:"rule"`
	Repetitions int             `json:"repetitions_required"`
	Tolerance   float64         `json:"tolerance_percent"`
	Rows        []ReproducedRow `json:"rows"`
}

// ReproducedRow is one published row's verdict.
type ReproducedRow struct {
	Workload string `json:"workload"`
	Status   string `json:"status"`
	// Reasons are every reason a row is not comparable (empty otherwise).
	Reasons []Reason `json:"reasons,omitempty"`
	// Worst is the figure furthest from the published, as a not
	// reproduced row names it ("Read Latency 1.8× the published").
	Worst   string             `json:"worst,omitempty"`
	Figures []ReproducedFigure `json:"figures,omitempty"`
}

// Reason is one reason a row is not comparable: a short tag the summary
// counts, and the sentence that says it.
type Reason struct {
	Tag  string `json:"tag"`
	Text string `json:"text"`
}

// ReproducedFigure is one published figure beside the median of the
// repetitions' measured ones and the 95% confidence interval of that
// median (distribution-free, from order statistics: with fewer than six
// repetitions the widest interval there is, min–max, whose Confidence is
// then below 95%).
type ReproducedFigure struct {
	Column     string  `json:"column"`
	Unit       string  `json:"unit"`
	Published  float64 `json:"published"`
	Median     float64 `json:"median"`
	Low        float64 `json:"ci_low"`
	High       float64 `json:"ci_high"`
	Confidence float64 `json:"ci_confidence"`
	// CV is the repetitions' coefficient of variation, which widens the
	// tolerance; Ratio is Median ÷ Published.
	CV    float64 `json:"cv"`
	Ratio float64 `json:"ratio"`
	// HigherIsBetter is set for throughput, not for latencies.
	HigherIsBetter bool `json:"higher_is_better"`
	Within         bool `json:"within"`
}

// reproductionOf judges every published row of a result.
func reproductionOf(r *Result, hw *PublishedHardware) *Reproduction {
	b := r.Baseline
	if b == nil || len(b.Rows) == 0 {
		return nil
	}
	rep := &Reproduction{Repetitions: b.Repetitions, Tolerance: b.Tolerance}
	if rep.Repetitions <= 0 {
		rep.Repetitions = DefaultRepetitions
	}
	if rep.Tolerance <= 0 {
		rep.Tolerance = DefaultTolerance
	}
	rep.Rule = fmt.Sprintf("reproduced: at least %d repetitions, the median of each figure within %g%% of the published widened by the repetitions' CV, and its 95%% confidence interval no more than %g%% on the wrong side of the published (below it for throughput, above it for latency); not comparable: a stand-in database, other hardware, overridden settings, a result not limited by the database, too few repetitions, or a published row that fails Little's law",
		rep.Repetitions, rep.Tolerance, rep.Tolerance)
	common := commonReasons(r, hw)
	for _, w := range r.Workloads {
		if w.Published == nil {
			continue
		}
		row := ReproducedRow{Workload: w.Name, Reasons: append([]Reason{}, common...), Figures: figuresOf(&w)}
		row.Reasons = append(row.Reasons, workloadReasons(r, &w, rep.Repetitions)...)
		judgeRow(&row, rep.Tolerance)
		rep.Rows = append(rep.Rows, row)
	}
	rep.Summary = reproductionSummary(rep.Rows)
	return rep
}

// commonReasons are the reasons no row of the run is comparable.
func commonReasons(r *Result, hw *PublishedHardware) []Reason {
	var out []Reason
	if d, want := r.Database, r.Environment.PublishedProduct; d != nil && want != "" && d.Product != "" && d.Product != want {
		out = append(out, Reason{"stand-in database", fmt.Sprintf("the database was %s, a stand-in for %s", d.Product, want)})
	}
	out = append(out, hardwareReasons(r, hw)...)
	if len(r.Overridden) > 0 {
		out = append(out, Reason{"overridden", "settings were overridden: " + strings.Join(r.Overridden, ", ")})
	}
	if b := r.Baseline; b != nil && !b.Consistent {
		out = append(out, Reason{"published table inconsistent", "the published table fails Little's law: " + strings.Join(b.Inconsistencies, "; ")})
	}
	return out
}

// hardwareReasons compare the run's hosts with the published machines.
func hardwareReasons(r *Result, hw *PublishedHardware) []Reason {
	if r.Environment.SharedMachine != nil {
		return []Reason{{"other hardware", "the hosts shared one machine (a local cluster), not the published machines"}}
	}
	if hw == nil {
		return []Reason{{"other hardware", "the published machines are not recorded for this run"}}
	}
	var out []Reason
	if r.Environment.DBHosts != hw.DBHosts || r.Environment.ClientHosts != hw.ClientHosts {
		out = append(out, Reason{"other hardware", fmt.Sprintf("%d db hosts and %d clients; the published figures had %d and %d",
			r.Environment.DBHosts, r.Environment.ClientHosts, hw.DBHosts, hw.ClientHosts)})
	}
	wantDB, wantClient := hw.Types[r.Environment.Provider], hw.ClientTypes[r.Environment.Provider]
	if wantDB == "" {
		return append(out, Reason{"other hardware", fmt.Sprintf("provider %s has no machine that stands for the published ones (%s)", r.Environment.Provider, hw.Note)})
	}
	for _, h := range r.Hosts {
		want := wantDB
		if len(h.Roles) > 0 && h.Roles[0] == "client" {
			want = wantClient
		}
		if h.InstanceType != want {
			out = append(out, Reason{"other hardware", fmt.Sprintf("%s is %q, the published machine %s", h.Name, h.InstanceType, want)})
		}
	}
	return out
}

// workloadReasons are the reasons one row is not comparable.
func workloadReasons(r *Result, w *WorkloadResult, need int) []Reason {
	var out []Reason
	if l := w.PublishedLittlesLaw; l != nil && !l.Within {
		out = append(out, Reason{"published row inconsistent", fmt.Sprintf("the published row's threads ÷ (throughput × mean latency) is %.2f, beyond Little's law's ±%g", l.Value, l.Tolerance)})
	}
	switch {
	case w.Limit == nil:
		out = append(out, Reason{"limit unknown", "what limited the run was not attributed"})
	case !strings.HasPrefix(w.Limit.LimitedBy, "database-"):
		tag := w.Limit.LimitedBy + "-limited"
		if w.Limit.LimitedBy == bottleneck.Unknown {
			tag = "limit unknown"
		}
		out = append(out, Reason{tag, w.Limit.Summary})
	}
	if reps := max(len(w.Repetitions), 1); reps < need {
		out = append(out, Reason{"too few repetitions", fmt.Sprintf("%d repetition(s); the profile asks %d (--repeat %d)", reps, need, need)})
	}
	return out
}

// figuresOf puts each published figure beside its repetitions' median.
func figuresOf(w *WorkloadResult) []ReproducedFigure {
	var out []ReproducedFigure
	for i, c := range w.Comparisons {
		if c.Unit == "%" || c.Published <= 0 {
			continue // the CPU column is shown, never judged
		}
		vals := []float64{c.Measured}
		if len(w.Repetitions) > 0 {
			vals = vals[:0]
			for _, rp := range w.Repetitions {
				if i < len(rp.Comparisons) && rp.Comparisons[i].Column == c.Column {
					vals = append(vals, rp.Comparisons[i].Measured)
				}
			}
		}
		f := ReproducedFigure{Column: c.Column, Unit: c.Unit, Published: c.Published, HigherIsBetter: c.Unit != "ms"}
		f.Median, f.Low, f.High, f.Confidence = medianCI(vals)
		f.CV = SpreadOf("", "", vals).CV
		f.Ratio = f.Median / f.Published
		out = append(out, f)
	}
	return out
}

// judgeRow sets a row's status: not comparable with any reason, else
// reproduced when every figure is within the rule, else not reproduced
// naming the figure furthest off.
func judgeRow(row *ReproducedRow, tol float64) {
	worst, worstBy := -1, 0.0
	for i := range row.Figures {
		f := &row.Figures[i]
		t := tol/100 + f.CV
		wrongSide := f.Low < f.Published*(1-tol/100)
		if !f.HigherIsBetter {
			wrongSide = f.High > f.Published*(1+tol/100)
		}
		f.Within = math.Abs(f.Ratio-1) <= t && !wrongSide
		if by := math.Abs(math.Log(f.Ratio)); !f.Within && by >= worstBy {
			worst, worstBy = i, by
		}
	}
	switch {
	case len(row.Reasons) > 0:
		row.Status = NotComparable
	case len(row.Figures) == 0:
		row.Status = NotComparable
		row.Reasons = []Reason{{"nothing measured", "no published figure has a measured one beside it"}}
	case worst < 0:
		row.Status = Reproduced
	default:
		row.Status = NotReproduced
		f := row.Figures[worst]
		row.Worst = fmt.Sprintf("%s %.2g× the published", f.Column, f.Ratio)
	}
}

// reproductionSummary is "2 of 6 reproduced, 1 not reproduced (…), 3 not
// comparable (…)".
func reproductionSummary(rows []ReproducedRow) string {
	var ok int
	var notRep, tags []string
	count := map[string]int{}
	nc := 0
	for _, r := range rows {
		switch r.Status {
		case Reproduced:
			ok++
		case NotReproduced:
			notRep = append(notRep, r.Workload+" "+r.Worst)
		default:
			nc++
			seen := map[string]bool{}
			for _, why := range r.Reasons {
				if !seen[why.Tag] {
					seen[why.Tag] = true
					count[why.Tag]++
				}
			}
		}
	}
	s := fmt.Sprintf("%d of %d reproduced", ok, len(rows))
	if len(notRep) > 0 {
		s += fmt.Sprintf(", %d not reproduced (%s)", len(notRep), strings.Join(notRep, "; "))
	}
	if nc > 0 {
		for t := range count {
			tags = append(tags, t)
		}
		sort.Slice(tags, func(i, j int) bool {
			return count[tags[i]] > count[tags[j]] || count[tags[i]] == count[tags[j]] && tags[i] < tags[j]
		})
		s += fmt.Sprintf(", %d not comparable (%s)", nc, strings.Join(tags, ", "))
	}
	return s
}

// medianCI is the median of vals and its distribution-free confidence
// interval: the order statistics x(k) and x(n−k+1) for the largest k whose
// coverage, 1 − 2·P(Binomial(n, ½) < k), is at least 95%; min–max (k = 1)
// when none is, with its own coverage.
func medianCI(vals []float64) (median, low, high, conf float64) {
	x := append([]float64(nil), vals...)
	sort.Float64s(x)
	n := len(x)
	if n == 0 {
		return 0, 0, 0, 0
	}
	median = Median(x)
	k, conf := 1, 1-2*binomCDF(n, 0)
	for j := 2; j <= n/2; j++ {
		c := 1 - 2*binomCDF(n, j-1)
		if c < 0.95 {
			break
		}
		k, conf = j, c
	}
	return median, x[k-1], x[n-k], math.Round(conf*10000) / 10000
}

// binomCDF is P(X ≤ k) for X ~ Binomial(n, ½).
func binomCDF(n, k int) float64 {
	var sum, c float64 = 0, 1 // c = C(n, i)
	for i := 0; i <= k; i++ {
		if i > 0 {
			c = c * float64(n-i+1) / float64(i)
		}
		sum += c
	}
	return sum / math.Pow(2, float64(n))
}
