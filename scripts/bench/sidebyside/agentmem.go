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
	agentmemTarget   = flag.Int("agentmem-target", 20000, "operations a second of the agentmem section's run (0: as fast as it goes)")
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
	if *agentmemInterval <= 0 || *agentmemHours < 2 || *agentmemThreads < 1 || *agentmemTarget < 0 || *agentmemEvery <= 0 {
		return fmt.Errorf("-agentmem-interval, -agentmem-sample must be positive, -agentmem-hours at least 2, -agentmem-threads at least 1, -agentmem-target not negative")
	}
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
	samples, err := sampleRSS(*ybload, args, *agentmemEvery)
	if err != nil {
		return err
	}
	rf, err := readRecords(records)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "## Agent memory over a long run (null binding, workload A, %d threads %s, ybload.interval=%s: %d ticks, %d \"hours\" of 3600 1-s ticks in %d s; records streamed to a file)\n\n",
		*agentmemThreads, rate, *agentmemInterval, rf.ticks, *agentmemHours, seconds)
	writeRSSHours(out, samples, rf.start, hour)
	fmt.Fprintf(out, "\n%d operations; the records file: %d ticks, %.1f MB; VmRSS read every %s (%d readings)\n\n",
		rf.ops, rf.ticks, float64(rf.size)/1e6, *agentmemEvery, len(samples))
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
