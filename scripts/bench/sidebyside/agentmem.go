package main

// The agent's memory over a long run (-only agentmem): the real ybload on
// its null binding (no database) for as many ticks as a run of several
// hours at 1 s ticks, its ticks shortened (ybload.interval) so that the
// run takes minutes, with its tick records streamed to a file; its
// resident memory (VmRSS) is read from /proc every so often and laid on
// the run's "hours" (3600 ticks each). Nothing a tick makes may stay in
// memory: the last hour's RSS should be the first's (goal: within ±10%).
//
// The shortened tick changes one thing the run does not control: the Go
// runtime collects when the heap reaches its goal (twice the live heap by
// default) or every 2 minutes of the clock. A run of 1 s ticks is
// collected at least every 120 ticks; at 20 ms ticks those 2 minutes are
// 6000 ticks, and the garbage of every tick waits that long, the RSS
// climbing to the heap's goal before it levels off. So the section runs
// the agent once as it ships and once with a collector goal close to the
// live heap (-agentmem-gogc), which collects about as often in ticks as a
// run of 1 s ticks does; and it reads the collector's trace
// (GODEBUG=gctrace=1) for the live heap after each collection, which is
// what would grow if ticks stayed in memory.

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
)

var (
	agentmemInterval = flag.Duration("agentmem-interval", 20*time.Millisecond, "the agentmem section's tick (ybload.interval): 3600 ticks are its hour")
	agentmemHours    = flag.Int("agentmem-hours", 3, "hours of 1 s ticks the agentmem section's run stands for")
	agentmemThreads  = flag.Int("agentmem-threads", 4, "threads of the agentmem section's null-binding run")
	agentmemTarget   = flag.Int("agentmem-target", 20000, "operations a second of the agentmem section's run (0: as fast as it goes)")
	agentmemEvery    = flag.Duration("agentmem-sample", 250*time.Millisecond, "how often the agentmem section reads the agent's VmRSS")
	agentmemGOGC     = flag.String("agentmem-gogc", "default,5", "the agentmem section's runs: a comma list of GOGC values for the agent, default for the runtime's own")
)

// ticksPerHour is an hour of the agent's default 1 s ticks.
const ticksPerHour = 3600

// rssSample is the agent's VmRSS (KiB) at a moment.
type rssSample struct {
	at  time.Time
	kib int64
}

// agentmemSection runs the long run, once per -agentmem-gogc value, and
// prints its RSS by hour.
func agentmemSection(out *strings.Builder) error {
	if *agentmemInterval <= 0 || *agentmemHours < 2 || *agentmemThreads < 1 || *agentmemTarget < 0 || *agentmemEvery <= 0 {
		return fmt.Errorf("-agentmem-interval, -agentmem-sample must be positive, -agentmem-hours at least 2, -agentmem-threads at least 1, -agentmem-target not negative")
	}
	gogcs := strings.Split(*agentmemGOGC, ",")
	for _, g := range gogcs {
		if n, err := strconv.Atoi(g); g != "default" && (err != nil || n < 1) {
			return fmt.Errorf("-agentmem-gogc %q: want a comma list of positive integers or default", *agentmemGOGC)
		}
	}
	for _, g := range gogcs {
		if err := agentmemRun(out, g); err != nil {
			return err
		}
	}
	return nil
}

// agentmemRun is one long run with the agent's GOGC set to gogc ("default":
// left alone).
func agentmemRun(out *strings.Builder, gogc string) error {
	hour := time.Duration(ticksPerHour) * *agentmemInterval
	seconds := int(math.Ceil((time.Duration(*agentmemHours) * hour).Seconds()))
	records := filepath.Join(*workdir, "agentmem-records.jsonl")
	args := []string{"run", "null", "-P", workloadFile("workloada"), "-p", "recordcount=100000", "-p", "operationcount=2000000000",
		"-p", "threadcount=" + strconv.Itoa(*agentmemThreads), "-p", "maxexecutiontime=" + strconv.Itoa(seconds),
		"-p", "ybload.interval=" + agentmemInterval.String(), "-p", "ybload.records=" + records}
	rate := "as fast as it goes"
	if *agentmemTarget > 0 {
		args = append(args, "-target", strconv.Itoa(*agentmemTarget))
		rate = fmt.Sprintf("at %d ops/s", *agentmemTarget)
	}
	env := gctraceEnv(os.Environ(), gogc)
	// What the agent ran with: the GOGC asked for, or the caller's, if any.
	collector := "GOGC=" + gogc
	if gogc == "default" {
		collector = "GOGC as the caller's environment has it (" + cmp.Or(os.Getenv("GOGC"), "unset: 100") + ")"
	}
	run, err := sampleRSS(*ybload, args, env, *agentmemEvery)
	if err != nil {
		return err
	}
	rf, err := readRecords(records)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "## Agent memory over a long run (null binding, workload A, %d threads %s, ybload.interval=%s: %d ticks, %d \"hours\" of 3600 1-s ticks in %d s; records streamed to a file; %s)\n\n",
		*agentmemThreads, rate, *agentmemInterval, rf.ticks, *agentmemHours, seconds, collector)
	writeRSSHours(out, run, rf.start, hour)
	fmt.Fprintf(out, "\n%d operations; the records file: %d ticks, %.1f MB; VmRSS read every %s (%d readings)\n\n",
		rf.ops, rf.ticks, float64(rf.size)/1e6, *agentmemEvery, len(run.samples))
	return nil
}

// gctraceEnv is env with the collector's trace on and GOGC set to gogc
// (unless "default"), keeping what GODEBUG already held.
func gctraceEnv(env []string, gogc string) []string {
	out := make([]string, 0, len(env)+2)
	debug := "gctrace=1"
	for _, kv := range env {
		switch {
		case strings.HasPrefix(kv, "GODEBUG="):
			if v := strings.TrimPrefix(kv, "GODEBUG="); v != "" {
				debug = v + "," + debug
			}
		case strings.HasPrefix(kv, "GOGC=") && gogc != "default":
		default:
			out = append(out, kv)
		}
	}
	out = append(out, "GODEBUG="+debug)
	if gogc != "default" {
		out = append(out, "GOGC="+gogc)
	}
	return out
}

// agentRun is what sampleRSS saw of the agent: its RSS readings and the
// collections its runtime traced.
type agentRun struct {
	samples []rssSample
	gcs     []gcTrace
}

// sampleRSS runs bin with args and env and reads its VmRSS every period
// until it exits; it reads the collector's trace from its stderr.
func sampleRSS(bin string, args, env []string, period time.Duration) (agentRun, error) {
	cmd := exec.Command(bin, args...)
	cmd.Env = env
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	started := time.Now()
	if err := cmd.Start(); err != nil {
		return agentRun{}, err
	}
	var (
		mu      sync.Mutex
		samples []rssSample
	)
	stop, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(period)
		defer t.Stop()
		for {
			if kib, ok := vmRSS(cmd.Process.Pid); ok {
				mu.Lock()
				samples = append(samples, rssSample{time.Now(), kib})
				mu.Unlock()
			}
			select {
			case <-stop:
				return
			case <-t.C:
			}
		}
	}()
	err := cmd.Wait()
	close(stop)
	<-done
	if err != nil {
		return agentRun{}, fmt.Errorf("%s %s: %v\n%s", bin, strings.Join(args, " "), err, stderr.String())
	}
	return agentRun{samples: samples, gcs: parseGCTrace(stderr.String(), started)}, nil
}

// gcTrace is one collection of the agent's runtime: when, and the live
// heap it left (MB, as the trace rounds it).
type gcTrace struct {
	at     time.Time
	liveMB int
}

// gcLine matches a gctrace=1 line: "gc 4 @120.037s 0%: ..., 30->30->17 MB, 34 MB goal, ...".
var gcLine = regexp.MustCompile(`^gc \d+ @([0-9.]+)s .* \d+->\d+->(\d+) MB, \d+ MB goal`)

// parseGCTrace reads the collections of a runtime's trace; started is
// when the process began (the trace's times count from its start).
func parseGCTrace(stderr string, started time.Time) []gcTrace {
	var out []gcTrace
	for _, l := range strings.Split(stderr, "\n") {
		m := gcLine.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		sec, err1 := strconv.ParseFloat(m[1], 64)
		live, err2 := strconv.Atoi(m[2])
		if err1 != nil || err2 != nil {
			continue
		}
		out = append(out, gcTrace{at: started.Add(time.Duration(sec * float64(time.Second))), liveMB: live})
	}
	return out
}

// vmRSS reads a process's VmRSS in KiB.
func vmRSS(pid int) (int64, bool) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, false
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "VmRSS:"); ok {
			n, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return n, err == nil
		}
	}
	return 0, false
}

// recordsFacts is what the section reads of the records file.
type recordsFacts struct {
	start time.Time // when the measured phase began (the end record's)
	ticks int       // ticks written (one line per operation each)
	ops   int64     // operations measured (the end record's)
	size  int64     // bytes
}

// readRecords reads the records file's facts.
func readRecords(path string) (recordsFacts, error) {
	var rf recordsFacts
	f, err := os.Open(path)
	if err != nil {
		return rf, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var l struct {
			Type         string          `json:"type"`
			Index        int             `json:"i"`
			MeasureStart time.Time       `json:"measure_start"`
			Ops          json.RawMessage `json:"ops"` // the meta record's are names
		}
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			return rf, fmt.Errorf("%s: %w", path, err)
		}
		switch l.Type {
		case "tick":
			rf.ticks = max(rf.ticks, l.Index+1)
		case "end":
			rf.start = l.MeasureStart
			if err := json.Unmarshal(l.Ops, &rf.ops); err != nil {
				return rf, fmt.Errorf("%s: end record: %w", path, err)
			}
		}
	}
	st, err := f.Stat()
	if err == nil {
		err = sc.Err()
	}
	if err != nil || rf.start.IsZero() {
		return rf, fmt.Errorf("%s: no end record (%v)", path, err)
	}
	rf.size = st.Size()
	return rf, nil
}

// rssHour is what the readings of one hour say, in KiB.
type rssHour struct {
	n                 int
	last, lo, hi, sum int64
	from, to          time.Time
}

// byHour lays the readings on hours of length hour from start; readings
// before start are not in any.
func byHour(samples []rssSample, start time.Time, hour time.Duration, hours int) []rssHour {
	out := make([]rssHour, hours)
	for i := range out {
		out[i].from, out[i].to = start.Add(time.Duration(i)*hour), start.Add(time.Duration(i+1)*hour)
	}
	for _, s := range samples {
		if s.at.Before(start) {
			continue
		}
		i := int(s.at.Sub(start) / hour)
		if i >= hours {
			continue
		}
		h := &out[i]
		if h.n == 0 || s.kib < h.lo {
			h.lo = s.kib
		}
		h.hi, h.last, h.sum, h.n = max(h.hi, s.kib), s.kib, h.sum+s.kib, h.n+1
	}
	return out
}

func (h rssHour) mean() float64 { return float64(h.sum) / float64(max(h.n, 1)) }

// writeRSSHours prints the RSS at the start of the measured phase, each
// hour's readings and collections, and the goal line.
func writeRSSHours(out *strings.Builder, run agentRun, start time.Time, hour time.Duration) {
	samples := run.samples
	mib := func(kib float64) float64 { return kib / 1024 }
	for _, s := range samples {
		if !s.at.Before(start) {
			fmt.Fprintf(out, "VmRSS at the start of the measured phase: %.1f MiB (read %s after it began, %s after the process started)\n\n",
				mib(float64(s.kib)), s.at.Sub(start).Round(time.Millisecond), s.at.Sub(samples[0].at).Round(time.Millisecond))
			break
		}
	}
	if before := gcsBefore(run.gcs, start); before.n > 0 {
		fmt.Fprintf(out, "live heap after the last collection before it: %d MB (%d collections while starting)\n\n", before.last, before.n)
	}
	hours := byHour(samples, start, hour, *agentmemHours)
	gcs := gcsByHour(run.gcs, start, hour, *agentmemHours)
	fmt.Fprint(out, "| hour | readings | VmRSS at its end (MiB) | min | mean | max | collections | live heap after them (MB) |\n|---|---|---|---|---|---|---|---|\n")
	for i, h := range hours {
		live := "–"
		if g := gcs[i]; g.n > 0 {
			live = fmt.Sprintf("%d–%d", g.lo, g.hi)
		}
		fmt.Fprintf(out, "| %d | %d | %.1f | %.1f | %.1f | %.1f | %d | %s |\n", i+1, h.n, mib(float64(h.last)), mib(float64(h.lo)), mib(h.mean()), mib(float64(h.hi)), gcs[i].n, live)
	}
	first, last := hours[0], hours[len(hours)-1]
	if first.n == 0 || last.n == 0 {
		fmt.Fprint(out, "\nagent RSS, last hour ÷ first hour: no readings in an hour (goal within ±10%)\n")
		return
	}
	fmt.Fprintf(out, "\nagent RSS, last hour ÷ first hour: %.3f (goal within ±10%%; the hours' mean readings; at their ends %.3f)\n",
		last.mean()/first.mean(), float64(last.last)/float64(first.last))
}

// gcHour is what the collections of one span left: how many, the live
// heap after them (MB), the last one's.
type gcHour struct{ n, lo, hi, last int }

func (g *gcHour) add(live int) {
	if g.n == 0 || live < g.lo {
		g.lo = live
	}
	g.hi, g.last, g.n = max(g.hi, live), live, g.n+1
}

// gcsBefore is the collections before start.
func gcsBefore(gcs []gcTrace, start time.Time) gcHour {
	var g gcHour
	for _, c := range gcs {
		if c.at.Before(start) {
			g.add(c.liveMB)
		}
	}
	return g
}

// gcsByHour lays the collections on hours as byHour does the readings.
func gcsByHour(gcs []gcTrace, start time.Time, hour time.Duration, hours int) []gcHour {
	out := make([]gcHour, hours)
	for _, c := range gcs {
		if c.at.Before(start) {
			continue
		}
		if i := int(c.at.Sub(start) / hour); i < hours {
			out[i].add(c.liveMB)
		}
	}
	return out
}
