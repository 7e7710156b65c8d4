package history

import (
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/ybbench/ybbench/collect/history/changepoint"
)

// JSON documents' schema names.
const (
	ListSchema        = "ybbench-history-list/1"
	SeriesSchema      = "ybbench-history-series/1"
	RegressionsSchema = "ybbench-history-regressions/1"
)

// Listing is `history list`: every series, with its first and last build.
type Listing struct {
	Schema string        `json:"schema"`
	Store  string        `json:"store"`
	Runs   int           `json:"runs"`
	Series []ListedSerie `json:"series"`
}

// ListedSerie is one series in a listing.
type ListedSerie struct {
	ID         string   `json:"id"`
	Path       string   `json:"path"`
	Key        Key      `json:"key"`
	Points     int      `json:"points"`
	FirstBuild string   `json:"first_build"`
	LastBuild  string   `json:"last_build"`
	Figures    []string `json:"figures"`
}

// ListOf is the listing of a store's series.
func ListOf(store string, runs int, all []*Series) Listing {
	l := Listing{Schema: ListSchema, Store: store, Runs: runs, Series: []ListedSerie{}}
	for _, s := range all {
		ls := ListedSerie{ID: s.ID, Path: s.Key.Path(), Key: s.Key, Points: len(s.Points), Figures: s.Figures()}
		if n := len(s.Points); n > 0 {
			ls.FirstBuild, ls.LastBuild = s.Points[0].Build.ID, s.Points[n-1].Build.ID
		}
		l.Series = append(l.Series, ls)
	}
	return l
}

// WriteListText prints a listing for people.
func WriteListText(w io.Writer, l Listing) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "SERIES\tPATH\tPOINTS\tFIRST BUILD\tLAST BUILD\tON")
	for _, s := range l.Series {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\t%s\n", s.ID, s.Path, s.Points, s.FirstBuild, s.LastBuild, s.Key.On())
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintf(w, "%d series of %d run(s) in %s\n", len(l.Series), l.Runs, l.Store)
	return err
}

// WriteListCSV prints a listing as CSV, one series a row.
func WriteListCSV(w io.Writer, l Listing) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"series", "path", "points", "first_build", "last_build", "flavor", "hardware", "clients", "parameters", "figures"})
	for _, s := range l.Series {
		cw.Write([]string{s.ID, s.Path, strconv.Itoa(s.Points), s.FirstBuild, s.LastBuild, s.Key.Flavor, s.Key.Hardware,
			strconv.Itoa(s.Key.Clients), params(s.Key), strings.Join(s.Figures, " ")})
	}
	cw.Flush()
	return cw.Error()
}

func params(k Key) string {
	d := k.Describe()
	_, p, _ := strings.Cut(d, "; ")
	return p
}

// Shown is `history show`: each series named with every point's figures.
type Shown struct {
	Schema string       `json:"schema"`
	Series []ShownSerie `json:"series"`
}

// ShownSerie is one series with its points.
type ShownSerie struct {
	ID     string       `json:"id"`
	Path   string       `json:"path"`
	Key    Key          `json:"key"`
	Points []ShownPoint `json:"points"`
}

// ShownPoint is one run of a series: each figure's values (one per
// repetition) and their median.
type ShownPoint struct {
	RunID    string               `json:"run_id"`
	Build    Build                `json:"build"`
	Recorded time.Time            `json:"recorded"`
	Figures  map[string][]float64 `json:"figures"`
	Medians  map[string]float64   `json:"medians"`
}

// ShowOf is the series as `history show` gives them.
func ShowOf(ss []*Series) Shown {
	out := Shown{Schema: SeriesSchema, Series: []ShownSerie{}}
	for _, s := range ss {
		sh := ShownSerie{ID: s.ID, Path: s.Key.Path(), Key: s.Key, Points: []ShownPoint{}}
		for _, p := range s.Points {
			sp := ShownPoint{RunID: p.RunID, Build: p.Build, Recorded: p.Recorded, Figures: p.Figures, Medians: map[string]float64{}}
			for f := range p.Figures {
				sp.Medians[f], _ = p.Value(f)
			}
			sh.Points = append(sh.Points, sp)
		}
		out.Series = append(out.Series, sh)
	}
	return out
}

// WriteShowText prints series for people: the key, then a row per run
// with each figure's median (and how many repetitions it is of).
func WriteShowText(w io.Writer, ss []*Series) error {
	for i, s := range ss {
		if i > 0 {
			fmt.Fprintln(w)
		}
		fmt.Fprintf(w, "series %s: %s\n", s.ID, s.Key.Describe())
		figs := s.Figures()
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
		fmt.Fprint(tw, "BUILD\tRUN\t")
		for _, f := range figs {
			fmt.Fprintf(tw, "%s (%s)\t", f, unitOf(f))
		}
		fmt.Fprintln(tw)
		for _, p := range s.Points {
			fmt.Fprintf(tw, "%s\t%s\t", p.Build.ID, p.RunID)
			for _, f := range figs {
				v, ok := p.Value(f)
				switch {
				case !ok:
					fmt.Fprint(tw, "—\t")
				case len(p.Figures[f]) > 1:
					fmt.Fprintf(tw, "%s (×%d)\t", num(v), len(p.Figures[f]))
				default:
					fmt.Fprintf(tw, "%s\t", num(v))
				}
			}
			fmt.Fprintln(tw)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	return nil
}

// WriteShowCSV prints series as CSV, one value a row (long form: a
// spreadsheet's pivot table, or pandas, takes it as it is).
func WriteShowCSV(w io.Writer, ss []*Series) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"series", "path", "run_id", "build", "build_time", "recorded", "figure", "repetition", "value"})
	for _, s := range ss {
		for _, p := range s.Points {
			bt := ""
			if !p.Build.Time.IsZero() {
				bt = p.Build.Time.UTC().Format(time.RFC3339)
			}
			for _, f := range s.Figures() {
				for k, v := range p.Figures[f] {
					cw.Write([]string{s.ID, s.Key.Path(), p.RunID, p.Build.ID, bt, p.Recorded.UTC().Format(time.RFC3339), f, strconv.Itoa(k + 1), strconv.FormatFloat(v, 'g', -1, 64)})
				}
			}
		}
	}
	cw.Flush()
	return cw.Error()
}

// Regressions is `history regressions`: the method's settings and each
// figure's analysis.
type Regressions struct {
	Schema   string     `json:"schema"`
	Method   string     `json:"method"`
	Settings Settings   `json:"settings"`
	Analyses []Analysis `json:"analyses"`
}

// Settings are the method's settings as printed beside every result.
type Settings struct {
	Window       int     `json:"window"`
	PValue       float64 `json:"p_value"`
	MinMagnitude float64 `json:"min_magnitude"`
	MinSegment   int     `json:"min_segment"`
}

// Method names the method for readers.
const Method = "E-divisive means with Student's t-test between the segments (Hunter), sliding windows, two-pass merge"

// SettingsOf is a changepoint setting with its defaults filled in.
func SettingsOf(set changepoint.Settings) Settings {
	d := changepoint.DefaultSettings()
	s := Settings{Window: set.Window, PValue: set.PValue, MinMagnitude: set.MinMagnitude, MinSegment: set.MinSegment}
	if s.Window == 0 {
		s.Window = d.Window
	}
	if s.PValue == 0 {
		s.PValue = d.PValue
	}
	if s.MinSegment == 0 {
		s.MinSegment = d.MinSegment
	}
	return s
}

// WriteRegressionsText prints the analyses for people: the method and its
// settings first, then per figure its change points and what it can find.
func WriteRegressionsText(w io.Writer, r Regressions) error {
	s := r.Settings
	fmt.Fprintf(w, "method: %s; window %d, p-value %g, minimum magnitude %g, minimum segment %d\n", r.Method, s.Window, s.PValue, s.MinMagnitude, s.MinSegment)
	found := 0
	for _, a := range r.Analyses {
		fmt.Fprintf(w, "\n%s (%s) %s: %d point(s)", a.Path, a.Series, a.Figure, a.Points)
		if a.Short != "" {
			fmt.Fprintf(w, ": too short to judge (%s)\n", a.Short)
			continue
		}
		fmt.Fprintf(w, "; noise %.1f%%; smallest step found half the time %.1f%%, nine times in ten %.1f%%\n", 100*a.Noise, 100*a.Detectable, 100*a.Reliable)
		if len(a.Change) == 0 {
			fmt.Fprintln(w, "  no change point")
		}
		for _, c := range a.Change {
			found++
			verdict := "better"
			if c.Worse {
				verdict = "WORSE"
			}
			fmt.Fprintf(w, "  change at build %s (last good %s, first bad %s; runs %s, %s): %s → %s %s, %+.1f%% (95%% CI %+.1f%% … %+.1f%%), p = %.2g: %s\n",
				c.FirstBad.ID, c.LastGood.ID, c.FirstBad.ID, c.LastGoodRun, c.FirstBadRun, num(c.MeanBefore), num(c.MeanAfter), unitOf(c.Figure),
				100*c.Change, 100*c.ChangeLow, 100*c.ChangeHigh, c.PValue, verdict)
		}
	}
	_, err := fmt.Fprintf(w, "\n%d change point(s) in %d figure(s)\n", found, len(r.Analyses))
	return err
}

func unitOf(figure string) string {
	switch figure {
	case "throughput":
		return "ops/s"
	case "error_rate":
		return "fraction"
	}
	return "µs"
}

// num prints a figure with enough digits to compare.
func num(v float64) string {
	switch a := math.Abs(v); {
	case a >= 100:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case a >= 1:
		return strconv.FormatFloat(v, 'f', 2, 64)
	}
	return strconv.FormatFloat(v, 'g', 3, 64)
}
