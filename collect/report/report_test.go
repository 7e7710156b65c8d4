package report

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/ybbench/ybbench/collect"
	"github.com/ybbench/ybbench/internal/golden"
	"github.com/ybbench/ybbench/record/hostcpu"
)

// fixtureDir is the committed fixture run directory; go test -update
// writes it again from the fixture's description (writeSynth).
const fixtureDir = "testdata/run"

func fixturePage(t *testing.T) *Page {
	t.Helper()
	if golden.Updating() {
		if err := os.RemoveAll(fixtureDir); err != nil {
			t.Fatal(err)
		}
		if err := writeSynth(fixtureDir, fixture); err != nil {
			t.Fatal(err)
		}
	}
	p, err := Build(fixtureDir)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// pageText is the page's data as text: every table, and every chart's
// series (name and point count), spans and note.
func pageText(p *Page) string {
	var b strings.Builder
	table := func(t Table) {
		fmt.Fprintf(&b, "## %s (%s)\n%s\n", t.Caption, t.Name, strings.Join(t.Head, " | "))
		for _, r := range t.Rows {
			fmt.Fprintln(&b, strings.Join(r, " | "))
		}
	}
	fmt.Fprintf(&b, "run %s, profile %s\n", p.RunID, p.Profile)
	if p.Verdict == nil {
		fmt.Fprintln(&b, "no gates")
	} else {
		fmt.Fprintf(&b, "verdict %s: %s\n", p.Verdict.Outcome, p.Verdict.Summary)
		table(p.Verdict.Gates)
	}
	table(p.Parameters)
	for _, w := range p.Workloads {
		fmt.Fprintf(&b, "# workload %s, %d repetitions\n", w.Name, w.Repetitions)
		for _, pr := range w.Problems {
			fmt.Fprintf(&b, "problem: %s\n", pr)
		}
		table(w.Spread)
		table(w.Published)
		for _, c := range w.Charts {
			fmt.Fprintf(&b, "chart %s: %s; x %s, y %s; nines %v\n", c.ID, c.Title, c.XLabel, c.YLabel, c.Nines)
			for _, s := range c.Series {
				fmt.Fprintf(&b, "  series %s: %d points\n", s.Name, len(s.X))
			}
			for _, bd := range c.Bands {
				fmt.Fprintf(&b, "  band %s %.0f–%.0f s warmup=%v\n", bd.Label, bd.From, bd.To, bd.Warmup)
			}
			if c.Note != "" {
				fmt.Fprintf(&b, "  note: %s\n", c.Note)
			}
		}
	}
	return b.String()
}

func TestPageGolden(t *testing.T) {
	p := fixturePage(t)
	golden.Check(t, "page.txt", []byte(pageText(p)))
	files, err := p.CSV()
	if err != nil {
		t.Fatal(err)
	}
	names := slices.Sorted(func(yield func(string) bool) {
		for n := range files {
			if !yield(n) {
				return
			}
		}
	})
	var all bytes.Buffer
	for _, n := range names {
		fmt.Fprintf(&all, "== %s\n%s", n, files[n])
	}
	golden.Check(t, "csv.txt", all.Bytes())
}

// TestPageFigures checks the page against what the fixture is made of,
// not against itself.
func TestPageFigures(t *testing.T) {
	p := fixturePage(t)
	if p.Verdict == nil || p.Verdict.Outcome != "fail" || len(p.Verdict.Gates.Rows) != 2 {
		t.Fatalf("verdict: %+v", p.Verdict)
	}
	if len(p.Workloads) != 1 {
		t.Fatalf("workloads: %d", len(p.Workloads))
	}
	w := p.Workloads[0]
	if w.Repetitions != fixture.reps || len(w.Spread.Rows) != 1+len(fixture.ops) {
		t.Errorf("repetitions %d, spread rows %d", w.Repetitions, len(w.Spread.Rows))
	}
	charts := map[string]Chart{}
	for _, c := range w.Charts {
		charts[strings.TrimPrefix(c.ID, w.Name+"-")] = c
	}
	ticks := fixture.loadTicks + fixture.runTicks
	tp := charts["throughput"]
	if len(tp.Series) != fixture.reps {
		t.Fatalf("throughput series: %d, want one per repetition", len(tp.Series))
	}
	for i, s := range tp.Series {
		if s.Name != fmt.Sprintf("r%d", i+1) || len(s.X) != ticks {
			t.Errorf("throughput series %s: %d points, want %d", s.Name, len(s.X), ticks)
		}
		// Every tick of repetition i+1 counts perTick + 10·i measurements per
		// operation and agent over one second.
		want := float64((fixture.perTick + 10*i) * len(fixture.ops) * len(fixture.agents))
		for _, y := range s.Y {
			if y != want {
				t.Errorf("throughput %s: %v, want %v", s.Name, y, want)
				break
			}
		}
	}
	if n := len(charts["latency"].Series); n != 2*fixture.reps {
		t.Errorf("latency series: %d, want p50 and p99 per repetition", n)
	}
	warm := 0
	for _, b := range tp.Bands {
		if b.Warmup {
			warm++
			if b.To-b.From != float64(fixture.warmTicks) {
				t.Errorf("warm-up band %v–%v, want %d s", b.From, b.To, fixture.warmTicks)
			}
		}
	}
	if warm != 1 || len(tp.Bands) != 3 {
		t.Errorf("bands: %+v, want load, run and run's warm-up", tp.Bands)
	}
	sp := charts["spectrum"]
	if len(sp.Series) != len(fixture.ops) || !sp.Nines {
		t.Fatalf("spectrum: %d series", len(sp.Series))
	}
	// The spectrum's p50 and p99 are the median repetition's figures in
	// result.json (which collect.Merge made from the same records).
	res, err := os.ReadFile(filepath.Join(fixtureDir, ResultFile))
	if err != nil {
		t.Fatal(err)
	}
	r, err := collect.ReadResult(res)
	if err != nil {
		t.Fatal(err)
	}
	med := r.Workloads[0].Repetitions[r.Workloads[0].MedianRepetition-1]
	for _, s := range sp.Series {
		if len(s.X) != len(SpectrumQuantiles) || !slices.IsSorted(s.Y) {
			t.Errorf("spectrum %s: %d points, sorted %v", s.Name, len(s.X), slices.IsSorted(s.Y))
		}
		m := med.Phases[len(med.Phases)-1].Find(s.Name)
		i50, i99 := slices.Index(SpectrumQuantiles, 0.5), slices.Index(SpectrumQuantiles, 0.99)
		if m == nil || s.Y[i50] != float64(m.Latency.P50)/1000 || s.Y[i99] != float64(m.Latency.P99)/1000 {
			t.Errorf("spectrum %s: p50 %v, p99 %v ms; result.json has %+v", s.Name, s.Y[i50], s.Y[i99], m)
		}
	}
	cpu := charts["cpu"]
	if len(cpu.Series) != len(fixture.dbHosts) || cpu.Note != "" {
		t.Fatalf("cpu: %d series, note %q", len(cpu.Series), cpu.Note)
	}
	for _, s := range cpu.Series {
		if len(s.X) != fixture.cpuSamples+1 {
			t.Errorf("cpu %s: %d points, want one per interval between readings (%d)", s.Name, len(s.X), fixture.cpuSamples+1)
		}
	}
}

// TestNoGatesNoSamples is a run without verdict.json, whose CPU file has
// only the phase's two readings and which ran once.
func TestNoGatesNoSamples(t *testing.T) {
	dir := t.TempDir()
	s := fixture
	s.reps, s.cpuSamples, s.verdict = 0, 0, false
	if err := writeSynth(dir, s); err != nil {
		t.Fatal(err)
	}
	p, err := Build(dir)
	if err != nil {
		t.Fatal(err)
	}
	if p.Verdict != nil {
		t.Error("a verdict without verdict.json")
	}
	var html bytes.Buffer
	if err := p.WriteHTML(&html); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(html.String(), "no gates") {
		t.Error("the page does not say there are no gates")
	}
	w := p.Workloads[0]
	for _, c := range w.Charts {
		switch c.ID {
		case "workloada-cpu":
			if c.Note != "CPU sampled at the phase's start and end only" || len(c.Series) != 2 || len(c.Series[0].X) != 2 || c.Series[0].Y[0] != c.Series[0].Y[1] {
				t.Errorf("cpu chart of an unsampled phase: %+v", c)
			}
		case "workloada-throughput":
			if len(c.Series) != 1 || len(c.Series[0].X) != s.loadTicks+s.runTicks {
				t.Errorf("throughput of a run without repetitions: %+v", c.Series)
			}
		}
	}
	if len(w.Spread.Rows) != 0 {
		t.Error("a spread without repetitions")
	}
}

// TestHTMLSelfContained: the page names no URL, loads no script and
// embeds one SVG per chart with series.
func TestHTMLSelfContained(t *testing.T) {
	p := fixturePage(t)
	var b bytes.Buffer
	if err := p.WriteHTML(&b); err != nil {
		t.Fatal(err)
	}
	h := b.String()
	for _, bad := range []string{"http:", "https:", "//", "<script", "src=", "href=", "url(", "<?xml"} {
		if strings.Contains(h, bad) {
			i := strings.Index(h, bad)
			t.Errorf("report.html holds %q: …%s…", bad, h[max(0, i-60):min(len(h), i+60)])
		}
	}
	if n := strings.Count(h, "<svg "); n != 4 {
		t.Errorf("%d SVGs, want 4 (throughput, latency, spectrum, CPU)", n)
	}
}

func TestWrite(t *testing.T) {
	dir := t.TempDir()
	if err := writeSynth(dir, fixture); err != nil {
		t.Fatal(err)
	}
	path, err := Write(dir)
	if err != nil {
		t.Fatal(err)
	}
	if path != filepath.Join(dir, HTMLFile) {
		t.Errorf("path %s", path)
	}
	for _, f := range []string{HTMLFile, CSVDir + "/gates.csv", CSVDir + "/workloada-throughput.csv", CSVDir + "/workloada-spectrum.csv", CSVDir + "/workloada-cpu.csv", CSVDir + "/parameters.csv"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Error(err)
		}
	}
}

// A record file that cannot be read is named on its workload's section and
// the rest is drawn; a directory without result.json is an error naming it.
func TestBuildProblems(t *testing.T) {
	if _, err := Build(t.TempDir()); err == nil || !strings.Contains(err.Error(), ResultFile) {
		t.Errorf("no result.json: %v", err)
	}
	// A verdict of another shape is refused, named, rather than shown half.
	vd := t.TempDir()
	if err := writeSynth(vd, fixture); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(vd, "verdict.json"), []byte(`{"schema": "ybbench-verdict/0"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Build(vd); err == nil || !strings.Contains(err.Error(), "verdict.json") || !strings.Contains(err.Error(), "$.schema") {
		t.Errorf("a verdict of another schema: %v", err)
	}
	dir := t.TempDir()
	if err := writeSynth(dir, fixture); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(dir, "agents", "client-2", "workloada-r1-run.jsonl")
	if err := os.WriteFile(bad, []byte("{\"v\": 99}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := Build(dir)
	if err != nil {
		t.Fatal(err)
	}
	w := p.Workloads[0]
	if len(w.Problems) != 1 || !strings.Contains(w.Problems[0], bad) {
		t.Errorf("problems: %q, want one naming %s", w.Problems, bad)
	}
	// r1's run phase is drawn from client-1 alone: half the throughput.
	tp := w.Charts[0].Series[0]
	if got, want := tp.Y[len(tp.Y)-1], float64(fixture.perTick*len(fixture.ops)); got != want {
		t.Errorf("r1's last tick: %v measurements/s, want %v (one agent)", got, want)
	}
}

// A process-mode interval that reads above the whole machine (a local
// run's last interval, where reaped connections' time arrives at once)
// is left out of the CPU chart and said under it; the others are drawn.
func TestCPUChartLeavesOutTheImpossible(t *testing.T) {
	dir := t.TempDir()
	sample := func(busy int64, at float64) hostcpu.Sample {
		return hostcpu.Sample{Mode: hostcpu.ModeProcess, Busy: busy, Hz: 100, Cores: 2, At: at}
	}
	// 30 %, 30 %, then 1000 ticks in 4 s: 125 % of two cores.
	f := &hostcpu.File{Workload: "workloada", Phase: "run", Hosts: map[string]hostcpu.Span{
		"db-1": {Before: sample(0, 0), Samples: []hostcpu.Sample{sample(300, 5), sample(600, 10)}, After: sample(1600, 14)}}}
	if err := hostcpu.Write(dir, f); err != nil {
		t.Fatal(err)
	}
	c, err := cpuChart(dir, &collect.WorkloadResult{Name: "workloada"})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Series) != 1 || len(c.Series[0].Y) != 2 || c.Series[0].Y[0] != 30 || c.Series[0].Y[1] != 30 {
		t.Fatalf("series %+v", c.Series)
	}
	if !strings.Contains(c.Note, "1 interval(s) left out") {
		t.Errorf("note %q", c.Note)
	}
}

// A series' breaks lift the pen: its path starts anew at each break and
// still visits every point; a break at 0 or repeated changes nothing.
func TestSeriesBreaksLiftThePen(t *testing.T) {
	for _, c := range []struct {
		breaks []int
		moves  int
	}{{nil, 1}, {[]int{3}, 2}, {[]int{0, 3, 3, 5}, 3}} {
		x := []float64{1, 2, 3, 4, 5, 6, 7}
		y := []float64{5, 6, 7, 1, 2, 8, 9}
		svg, err := drawSVG(Chart{ID: "t", Series: []Series{{Name: "s", X: x, Y: y, Breaks: c.breaks}}})
		if err != nil {
			t.Fatal(err)
		}
		var d string
		for _, m := range regexp.MustCompile(`(?i)<path d="([^"]*)"[^>]*stroke:#1f77b4`).FindAllStringSubmatch(string(svg), -1) {
			d = m[1]
		}
		if d == "" {
			t.Fatalf("breaks %v: no path in the series' colour in\n%s", c.breaks, svg)
		}
		if got := strings.Count(d, "M"); got != c.moves {
			t.Errorf("breaks %v: %d moves in %q, want %d", c.breaks, got, d, c.moves)
		}
		if got := strings.Count(d, "M") + strings.Count(d, "L"); got != len(x) {
			t.Errorf("breaks %v: %d points in %q, want %d", c.breaks, got, d, len(x))
		}
	}
}

// The chart's series are the samples' intervals, each the share its ticks
// say at its end, except a partial last interval (the phase ended just
// after a sample), which is left out and said so: it would draw a spike.
func TestCPUChartLeavesOutPartialIntervals(t *testing.T) {
	dir := t.TempDir()
	sample := func(busy, total int64, at float64) hostcpu.Sample {
		return hostcpu.Sample{Mode: hostcpu.ModeNode, Busy: busy, Total: total, Hz: 100, Cores: 4, At: at}
	}
	// 1 s intervals at 25 %, 50 %, 75 %, then 0.1 s in which 36 of 40
	// ticks were busy (90 %).
	f := &hostcpu.File{Workload: "workloada", Phase: "run", Hosts: map[string]hostcpu.Span{
		"db-1": {Before: sample(0, 0, 100), Samples: []hostcpu.Sample{sample(100, 400, 101), sample(300, 800, 102), sample(600, 1200, 103)},
			After: sample(636, 1240, 103.1)}}}
	if err := hostcpu.Write(dir, f); err != nil {
		t.Fatal(err)
	}
	c, err := cpuChart(dir, &collect.WorkloadResult{Name: "workloada"})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Series) != 1 {
		t.Fatalf("series %+v", c.Series)
	}
	s := c.Series[0]
	if !slices.Equal(s.X, []float64{1, 2, 3}) || !slices.Equal(s.Y, []float64{25, 50, 75}) {
		t.Errorf("series X %v Y %v; want the three full intervals at 25, 50, 75 %%", s.X, s.Y)
	}
	if !strings.Contains(c.Note, "1 partial interval(s) left out") {
		t.Errorf("note %q", c.Note)
	}
}

// report.html shows each limit's figures under its summary, as report.md
// does.
func TestHTMLShowsTheLimitsEvidence(t *testing.T) {
	p := fixturePage(t)
	p.Limits = []collect.LimitLine{{Workload: "workloada", LimitedBy: "client",
		Summary:  "Limited by the client: ybload used 0.99 of 1 cores on client-1",
		Evidence: []string{"client-1: the agent used 99.0% of the 1 cores it may use (rule: ≥ 90%)"}}}
	var b bytes.Buffer
	if err := p.WriteHTML(&b); err != nil {
		t.Fatal(err)
	}
	want := `<li data-limited-by="client"><b>workloada:</b> Limited by the client: ybload used 0.99 of 1 cores on client-1.<ul class="evidence"><li>client-1: the agent used 99.0% of the 1 cores it may use (rule: ≥ 90%)</li></ul></li>`
	if !strings.Contains(b.String(), want) {
		i := strings.Index(b.String(), `id="limits"`)
		t.Errorf("report.html lacks the limit with its evidence %q; its limits section:\n%s", want, b.String()[max(i, 0):min(len(b.String()), max(i, 0)+600)])
	}
}

// The reasons every published row gives are said once, above the table,
// and each row points at them.
func TestHTMLSaysSharedReasonsOnce(t *testing.T) {
	p := fixturePage(t)
	standIn := collect.Reason{Tag: "stand-in database", Text: "the database was PostgreSQL, a stand-in for YugabyteDB"}
	p.Reproduction = &collect.Reproduction{Summary: "0 of 2 reproduced, 2 not comparable (stand-in database)", Rows: []collect.ReproducedRow{
		{Workload: "workloada", Status: collect.NotComparable, Reasons: []collect.Reason{standIn}},
		{Workload: "workloadb", Status: collect.NotComparable, Reasons: []collect.Reason{standIn}},
	}}
	var b bytes.Buffer
	if err := p.WriteHTML(&b); err != nil {
		t.Fatal(err)
	}
	html := b.String()
	if n := strings.Count(html, standIn.Text); n != 1 {
		t.Errorf("the shared reason appears %d times, want once", n)
	}
	if !strings.Contains(html, `<p data-name="shared-reasons">Not comparable, every row: the database was PostgreSQL, a stand-in for YugabyteDB.</p>`) ||
		strings.Count(html, "<td>the reasons every row gives (above)</td>") != 2 {
		i := strings.Index(html, `id="reproduction"`)
		t.Errorf("report.html's reproduction section:\n%s", html[max(i, 0):min(len(html), max(i, 0)+900)])
	}
}
