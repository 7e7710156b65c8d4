package main

// The agent's memory over a long run (-only agentmem): the real ybload on
// its null binding (no database) for as many ticks as a run of several
// hours at 1 s ticks, its ticks shortened (ybload.interval) so that the
// run takes minutes, with its tick records streamed to a file; its
// resident memory (VmRSS) is read from /proc every so often and laid on
// the run's "hours" (3600 ticks each). Nothing a tick makes may stay in
// memory: the last hour's RSS should be the first's (goal: within ±10%).

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

var (
	agentmemInterval = flag.Duration("agentmem-interval", 20*time.Millisecond, "the agentmem section's tick (ybload.interval): 3600 ticks are its hour")
	agentmemHours    = flag.Int("agentmem-hours", 3, "hours of 1 s ticks the agentmem section's run stands for")
	agentmemThreads  = flag.Int("agentmem-threads", 4, "threads of the agentmem section's null-binding run")
	agentmemTarget   = flag.Int("agentmem-target", 20000, "operations a second of the agentmem section's run")
	agentmemEvery    = flag.Duration("agentmem-sample", 250*time.Millisecond, "how often the agentmem section reads the agent's VmRSS")
)

// ticksPerHour is an hour of the agent's default 1 s ticks.
const ticksPerHour = 3600

// rssSample is the agent's VmRSS (KiB) at a moment.
type rssSample struct {
	at  time.Time
	kib int64
}

// agentmemSection runs the long run and prints its RSS by hour.
func agentmemSection(out *strings.Builder) error {
	if *agentmemInterval <= 0 || *agentmemHours < 2 || *agentmemThreads < 1 || *agentmemTarget < 1 || *agentmemEvery <= 0 {
		return fmt.Errorf("-agentmem-interval, -agentmem-sample must be positive, -agentmem-hours at least 2, -agentmem-threads and -agentmem-target at least 1")
	}
	hour := time.Duration(ticksPerHour) * *agentmemInterval
	seconds := int(math.Ceil((time.Duration(*agentmemHours) * hour).Seconds()))
	records := filepath.Join(*workdir, "agentmem-records.jsonl")
	args := []string{"run", "null", "-P", workloadFile("workloada"), "-p", "recordcount=100000", "-p", "operationcount=2000000000",
		"-p", "threadcount=" + strconv.Itoa(*agentmemThreads), "-p", "maxexecutiontime=" + strconv.Itoa(seconds),
		"-p", "ybload.interval=" + agentmemInterval.String(), "-p", "ybload.records=" + records, "-target", strconv.Itoa(*agentmemTarget)}
	samples, err := sampleRSS(*ybload, args, *agentmemEvery)
	if err != nil {
		return err
	}
	start, ticks, size, err := measuredStart(records)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "## Agent memory over a long run (null binding, workload A, %d threads at %d ops/s, ybload.interval=%s: %d ticks, %d \"hours\" of 3600 1-s ticks in %d s; records streamed to a file)\n\n",
		*agentmemThreads, *agentmemTarget, *agentmemInterval, ticks, *agentmemHours, seconds)
	writeRSSHours(out, samples, start, hour)
	fmt.Fprintf(out, "\nthe records file: %d ticks, %.1f MB; VmRSS read every %s (%d readings)\n\n", ticks, float64(size)/1e6, *agentmemEvery, len(samples))
	return nil
}

// sampleRSS runs bin with args and reads its VmRSS every period until it
// exits.
func sampleRSS(bin string, args []string, period time.Duration) ([]rssSample, error) {
	cmd := exec.Command(bin, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		return nil, err
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
		return nil, fmt.Errorf("%s %s: %v\n%s", bin, strings.Join(args, " "), err, stderr.String())
	}
	return samples, nil
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

// measuredStart reads the records file: when the measured phase began
// (its end record's), how many ticks it holds (one line per operation
// each), and its size.
func measuredStart(path string) (time.Time, int, int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return time.Time{}, 0, 0, err
	}
	defer f.Close()
	var start time.Time
	ticks := 0
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var l struct {
			Type         string    `json:"type"`
			Index        int       `json:"i"`
			MeasureStart time.Time `json:"measure_start"`
		}
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			return time.Time{}, 0, 0, fmt.Errorf("%s: %w", path, err)
		}
		switch l.Type {
		case "tick":
			ticks = max(ticks, l.Index+1)
		case "end":
			start = l.MeasureStart
		}
	}
	st, err := f.Stat()
	if err == nil {
		err = sc.Err()
	}
	if err != nil || start.IsZero() {
		return time.Time{}, 0, 0, fmt.Errorf("%s: no end record (%v)", path, err)
	}
	return start, ticks, st.Size(), nil
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
// hour's readings and the goal line.
func writeRSSHours(out *strings.Builder, samples []rssSample, start time.Time, hour time.Duration) {
	mib := func(kib float64) float64 { return kib / 1024 }
	for _, s := range samples {
		if !s.at.Before(start) {
			fmt.Fprintf(out, "VmRSS at the start of the measured phase: %.1f MiB (read %s after it began, %s after the process started)\n\n",
				mib(float64(s.kib)), s.at.Sub(start).Round(time.Millisecond), s.at.Sub(samples[0].at).Round(time.Millisecond))
			break
		}
	}
	hours := byHour(samples, start, hour, *agentmemHours)
	fmt.Fprint(out, "| hour | readings | VmRSS at its end (MiB) | min | mean | max |\n|---|---|---|---|---|---|\n")
	for i, h := range hours {
		fmt.Fprintf(out, "| %d | %d | %.1f | %.1f | %.1f | %.1f |\n", i+1, h.n, mib(float64(h.last)), mib(float64(h.lo)), mib(h.mean()), mib(float64(h.hi)))
	}
	first, last := hours[0], hours[len(hours)-1]
	if first.n == 0 || last.n == 0 {
		fmt.Fprint(out, "\nagent RSS, last hour ÷ first hour: no readings in an hour (goal within ±10%)\n")
		return
	}
	fmt.Fprintf(out, "\nagent RSS, last hour ÷ first hour: %.3f (goal within ±10%%; the hours' mean readings; at their ends %.3f)\n",
		last.mean()/first.mean(), float64(last.last)/float64(first.last))
}
