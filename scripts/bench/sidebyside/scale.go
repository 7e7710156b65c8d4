package main

import (
	"flag"
	"fmt"
	"io/fs"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

var (
	scaleSizes  = flag.String("scale-sizes", "1,10,100", "the scale section's run lengths, as multiples of BenchmarkWrite's ticks (10 load, 60 run)")
	scaleAgents = flag.String("scale-agents", "1,4,16", "the scale section's agent counts for collect")
	scaleLength = flag.Int("scale-agents-length", 10, "the run length (multiple) of the scale section's agent series")
)

// scaleRun is one synthetic run: its shape's size, and what it holds.
type scaleRun struct {
	mult, agents int
	dir          string
	records      int64 // tick records (lines) of every agent's files
	recordBytes  int64
	agentHours   float64
}

// scaleCost is one stage's run on one synthetic run: wall, CPU and peak
// RSS of its own process, and the bytes it wrote.
type scaleCost struct {
	s       sample
	written int64
}

// The synthetic runs' shape beside mult: BenchmarkWrite's (6 workloads ×
// 3 repetitions × 6 operations, 10 load and 60 run ticks of 1 s, 5 of
// them warm-up, 50 measurements per operation and tick), 2 agents.
const (
	scaleWorkloads, scaleReps, scaleOps = 6, 3, 6
	scaleLoad, scaleRunTicks, scaleWarm = 10, 60, 5
)

// scaleSection measures what collect and report cost as runs grow: each
// stage in a process of its own (scripts/bench/scaleprobe, the stages'
// own code) on synthetic runs written by the agent's record sink, at
// several lengths and, for collect, several agent counts. It prints each
// cost beside the work (tick records), the fitted exponent of cost
// against work, and the goals beside the figures.
func scaleSection(out *strings.Builder) error {
	dir, err := filepath.Abs(filepath.Join(*workdir, "scale"))
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	probe := filepath.Join(dir, "scaleprobe")
	if b, err := exec.Command("go", "build", "-o", probe, "./scripts/bench/scaleprobe").CombinedOutput(); err != nil {
		return fmt.Errorf("build scaleprobe: %v\n%s", err, b)
	}
	sizes, err := intList("scale-sizes", *scaleSizes)
	if err != nil {
		return err
	}
	agents, err := intList("scale-agents", *scaleAgents)
	if err != nil {
		return err
	}
	var runs []scaleRun
	var collects, reports []scaleCost
	for _, m := range sizes {
		r, c, rep, err := scaleMeasure(probe, dir, m, 2, true)
		if err != nil {
			return err
		}
		runs, collects, reports = append(runs, r), append(collects, c), append(reports, rep)
	}
	var aruns []scaleRun
	var acollects []scaleCost
	for _, a := range agents {
		r, c, _, err := scaleMeasure(probe, dir, *scaleLength, a, false)
		if err != nil {
			return err
		}
		aruns, acollects = append(aruns, r), append(acollects, c)
	}
	printScale(out, runs, collects, reports, aruns, acollects)
	return nil
}

// scaleMeasure writes the synthetic run of length mult and agents, runs
// collect on it and, with report, report; it removes the run after.
func scaleMeasure(probe, dir string, mult, agents int, report bool) (scaleRun, scaleCost, scaleCost, error) {
	r := scaleRun{mult: mult, agents: agents, dir: filepath.Join(dir, fmt.Sprintf("x%d-a%d", mult, agents))}
	os.RemoveAll(r.dir)
	defer os.RemoveAll(r.dir)
	gen := []string{probe, "gen", "-dir", r.dir, "-workloads", strconv.Itoa(scaleWorkloads), "-reps", strconv.Itoa(scaleReps),
		"-agents", strconv.Itoa(agents), "-ops", strconv.Itoa(scaleOps), "-load-ticks", strconv.Itoa(scaleLoad * mult),
		"-run-ticks", strconv.Itoa(scaleRunTicks * mult), "-warm-ticks", strconv.Itoa(scaleWarm * mult)}
	if b, err := exec.Command(gen[0], gen[1:]...).CombinedOutput(); err != nil {
		return r, scaleCost{}, scaleCost{}, fmt.Errorf("scaleprobe gen: %v\n%s", err, b)
	}
	ticks := int64(scaleLoad+scaleRunTicks) * int64(mult)
	perAgentFile := int64(scaleWorkloads * scaleReps * agents)
	r.records = perAgentFile * ticks * scaleOps
	r.agentHours = float64(perAgentFile*ticks) / 3600
	r.recordBytes = sizeOf(filepath.Join(r.dir, "agents"))
	var c, rep scaleCost
	var err error
	if c.s, err = measure([]string{probe, "collect", "-dir", r.dir}, r.records); err != nil {
		return r, c, rep, err
	}
	c.written = sizeOf(filepath.Join(r.dir, "result.json")) + sizeOf(filepath.Join(r.dir, "hdr"))
	if !report {
		return r, c, rep, nil
	}
	if rep.s, err = measure([]string{probe, "report", "-dir", r.dir}, r.records); err != nil {
		return r, c, rep, err
	}
	rep.written = sizeOf(filepath.Join(r.dir, "report.md")) + sizeOf(filepath.Join(r.dir, "report.html")) + sizeOf(filepath.Join(r.dir, "report-csv"))
	return r, c, rep, nil
}

// printScale prints the section: a table per series, each cost per tick
// record, the fitted exponents and the goals.
func printScale(out *strings.Builder, runs []scaleRun, collects, reports []scaleCost, aruns []scaleRun, acollects []scaleCost) {
	fmt.Fprintf(out, "## Scale (collect and report as runs grow)\n\nSynthetic runs written by the agent's record sink: %d workloads × %d repetitions × %d operations, "+
		"%d load and %d run ticks of 1 s (%d warm-up) at 1×, 50 measurements per operation and tick; each stage in a process of its own "+
		"(scripts/bench/scaleprobe); peak RSS is the process's (getrusage). Figures, not pass/fail; one run each on a shared machine.\n\n",
		scaleWorkloads, scaleReps, scaleOps, scaleLoad, scaleRunTicks, scaleWarm)
	fmt.Fprintf(out, "| length | agents | tick records | records MB | stage | wall s | CPU s | CPU µs/record | peak RSS MB | RSS KB/1000 records | written MB |\n|---|---|---|---|---|---|---|---|---|---|---|\n")
	for i, r := range runs {
		scaleRow(out, r, "collect", collects[i])
		scaleRow(out, r, "report", reports[i])
	}
	fmt.Fprintf(out, "\nfitted exponent k of cost ∝ records^k (least squares on log–log over %s):\n\n", lengths(runs))
	for _, st := range []struct {
		name  string
		costs []scaleCost
	}{{"collect", collects}, {"report", reports}} {
		fmt.Fprintf(out, "- %s: wall k=%.2f, CPU k=%.2f, peak RSS k=%.2f, written k=%.2f\n", st.name,
			fitExponent(runs, st.costs, func(c scaleCost) float64 { return c.s.wall.Seconds() }),
			fitExponent(runs, st.costs, func(c scaleCost) float64 { return c.s.cpu.Seconds() }),
			fitExponent(runs, st.costs, func(c scaleCost) float64 { return float64(c.s.maxRSS) }),
			fitExponent(runs, st.costs, func(c scaleCost) float64 { return float64(c.written) }))
	}
	fmt.Fprintf(out, "\ncollect by agents, each run %d× long:\n\n| agents | tick records | records MB | wall s | CPU s | CPU µs/record | peak RSS MB | written MB |\n|---|---|---|---|---|---|---|---|\n", *scaleLength)
	for i, r := range aruns {
		c := acollects[i]
		fmt.Fprintf(out, "| %d | %d | %.0f | %.2f | %.2f | %.1f | %.0f | %.0f |\n", r.agents, r.records, mb(r.recordBytes), c.s.wall.Seconds(), c.s.cpu.Seconds(),
			perRecord(c.s.cpu, r.records), float64(c.s.maxRSS)/1024, mb(c.written))
	}
	fmt.Fprintf(out, "\nfitted exponent over the agent counts: wall k=%.2f, CPU k=%.2f, peak RSS k=%.2f\n\n",
		fitExponent(aruns, acollects, func(c scaleCost) float64 { return c.s.wall.Seconds() }),
		fitExponent(aruns, acollects, func(c scaleCost) float64 { return c.s.cpu.Seconds() }),
		fitExponent(aruns, acollects, func(c scaleCost) float64 { return float64(c.s.maxRSS) }))
	scaleGoals(out, runs, collects, reports)
}

func scaleRow(out *strings.Builder, r scaleRun, stage string, c scaleCost) {
	fmt.Fprintf(out, "| %d× | %d | %d | %.0f | %s | %.2f | %.2f | %.1f | %.0f | %.2f | %.1f |\n", r.mult, r.agents, r.records, mb(r.recordBytes), stage,
		c.s.wall.Seconds(), c.s.cpu.Seconds(), perRecord(c.s.cpu, r.records), float64(c.s.maxRSS)/1024,
		float64(c.s.maxRSS)/float64(r.records)*1000, mb(c.written))
}

// scaleGoals prints the goals beside the figures: report at 100×,
// collect per agent-hour of 1 s ticks and its peak RSS at each length.
func scaleGoals(out *strings.Builder, runs []scaleRun, collects, reports []scaleCost) {
	for i, r := range runs {
		if r.mult == 100 {
			fmt.Fprintf(out, "report render at 100×: peak RSS %.0f MB (goal < 200 MB), CPU %.1f s (goal < 2 s)\n\n",
				float64(reports[i].s.maxRSS)/1024, reports[i].s.cpu.Seconds())
		}
	}
	var per, rss []string
	for i, r := range runs {
		per = append(per, fmt.Sprintf("%.2f s CPU (%.2f s wall) at %d×", collects[i].s.cpu.Seconds()/r.agentHours, collects[i].s.wall.Seconds()/r.agentHours, r.mult))
		rss = append(rss, fmt.Sprintf("%.0f MB", float64(collects[i].s.maxRSS)/1024))
	}
	fmt.Fprintf(out, "collect: %s per agent-hour (goal < 10 s), peak RSS at %s: %s\n\n", strings.Join(per, ", "), lengths(runs), strings.Join(rss, "/"))
}

// fitExponent is the slope of log(cost) over log(tick records), by least
// squares: 1 is linear, 0 flat.
func fitExponent(runs []scaleRun, costs []scaleCost, f func(scaleCost) float64) float64 {
	var xs, ys []float64
	for i, r := range runs {
		if y := f(costs[i]); y > 0 && r.records > 0 {
			xs, ys = append(xs, math.Log(float64(r.records))), append(ys, math.Log(y))
		}
	}
	if len(xs) < 2 {
		return math.NaN()
	}
	var mx, my float64
	for i := range xs {
		mx, my = mx+xs[i], my+ys[i]
	}
	mx, my = mx/float64(len(xs)), my/float64(len(xs))
	var sxy, sxx float64
	for i := range xs {
		sxy += (xs[i] - mx) * (ys[i] - my)
		sxx += (xs[i] - mx) * (xs[i] - mx)
	}
	if sxx == 0 {
		return math.NaN()
	}
	return sxy / sxx
}

func lengths(runs []scaleRun) string {
	var s []string
	for _, r := range runs {
		s = append(s, fmt.Sprintf("%d×", r.mult))
	}
	return strings.Join(s, "/")
}

func perRecord(d time.Duration, records int64) float64 {
	return float64(d.Microseconds()) / float64(records)
}

func mb(b int64) float64 { return float64(b) / (1 << 20) }

// sizeOf is the bytes of a file, or of every file under a directory.
func sizeOf(path string) int64 {
	var n int64
	filepath.WalkDir(path, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if info, err := d.Info(); err == nil {
				n += info.Size()
			}
		}
		return nil
	})
	return n
}
