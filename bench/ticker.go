package bench

import (
	"time"
)

// ticker drains every recorder at each interval, hands the interval to the
// sinks and keeps the totals. It returns the result once the workers are
// done and the last partial interval has been drained.
func (r *run) ticker(allDone <-chan struct{}) *Result {
	c := &r.cfg
	sched := c.Schedule != nil
	mk := func() []*OpStats {
		s := make([]*OpStats, len(r.cat.Ops))
		for i, name := range r.cat.Ops {
			s[i] = NewOpStats(Op(i), name, len(r.cat.Statuses), sched)
		}
		return s
	}
	measured, warm := mk(), mk()
	totals, warmTotals := mk(), mk()

	iv := &Interval{Measured: measured, Warmup: warm}
	var from int64
	step := drainStep(c.Interval)
	t := time.NewTimer(step)
	defer t.Stop()
	for idx := 0; ; idx++ {
		final := false
		to := int64(idx+1) * int64(c.Interval)
		// The recorders are drained several times an interval, into the
		// same interval: a worker's buffer then holds a fraction of an
		// interval's samples, not all of them (at 6 M operations a second,
		// 96 MB a second, twice over for the two buffers).
		for {
			select {
			case <-t.C:
			case <-allDone:
				final = true
				to = r.clk.Now()
			}
			r.drain(iv)
			if final {
				break
			}
			now := r.clk.Now()
			boundary := to
			if now >= to {
				boundary += int64(c.Interval)
			}
			t.Reset(time.Duration(max(min(boundary, now+int64(step))-now, 0)))
			if now >= to {
				break
			}
		}
		iv.Index, iv.Final = idx, final
		iv.Start, iv.End = r.clk.Wall(from), r.clk.Wall(to)
		iv.Elapsed = time.Duration(to)
		iv.Done, iv.Todo = r.progress()
		for _, s := range c.Sinks {
			if err := s.Tick(iv); err != nil {
				r.fail(err)
			}
		}
		for i := range totals {
			totals[i].Merge(measured[i])
			warmTotals[i].Merge(warm[i])
			measured[i].Reset()
			warm[i].Reset()
		}
		iv.Raw = iv.Raw[:0]
		from = to
		if final {
			break
		}
	}
	return r.result(totals, warmTotals)
}

// drainStep is how often the ticker drains the recorders: ten times an
// interval, but not more often than every 10 ms.
func drainStep(interval time.Duration) time.Duration {
	return min(interval, max(interval/10, 10*time.Millisecond))
}

// drain folds every recorder's samples since the last drain into iv.
func (r *run) drain(iv *Interval) {
	sched := r.cfg.Schedule != nil
	base := r.clk.Base()
	for _, rec := range r.recs {
		b := rec.swap()
		i := -1 // the sample's index in b, for its end in b.ends
		for _, blk := range b.filled() {
			for j := range blk {
				x := &blk[j]
				i++
				r.drainOne(iv, b, i, x, sched, base)
			}
		}
		b.clear()
	}
}

// drainOne adds sample x (the i-th of b) to the interval.
func (r *run) drainOne(iv *Interval, b *sampleBuf, i int, x *sample, sched bool, base time.Time) {
	ok := r.cat.Statuses[x.st].OK
	warmup := x.flags&flagWarmup != 0
	if warmup {
		iv.Warmup[x.op].add(x, ok, sched)
	} else {
		iv.Measured[x.op].add(x, ok, sched)
	}
	if r.cfg.Raw {
		iv.Raw = append(iv.Raw, RawSample{
			Op: x.op, OK: ok, Warmup: warmup,
			End:     base.Add(time.Duration(b.ends[i])),
			Service: int64(x.svc), Response: int64(x.resp),
		})
	}
}

// progress returns the operations counted so far and what remains of the quotas.
func (r *run) progress() (done, todo int64) {
	for i := range r.counts {
		d := r.counts[i].done.Load()
		done += d
		if r.quotas != nil && r.quotas[i] > d {
			todo += r.quotas[i] - d
		}
	}
	if r.cfg.SharedQuota && r.cfg.Operations > 0 {
		todo = max(r.cfg.Operations-done, 0)
	}
	return done, todo
}

// warmOps sums the operations completed during warm-up.
func (r *run) warmOps() int64 {
	var n int64
	for i := range r.counts {
		n += r.counts[i].warm.Load()
	}
	return n
}

func (r *run) result(totals, warmTotals []*OpStats) *Result {
	c := &r.cfg
	end := r.lastEnd.Load()
	measureFrom := min(r.warmupEnd, end)
	done, _ := r.progress()
	res := &Result{
		Workload:     r.wl.Name(),
		Threads:      c.Threads,
		Start:        r.clk.Base(),
		MeasureStart: r.clk.Wall(measureFrom),
		End:          r.clk.Wall(end),
		RunTime:      time.Duration(end - measureFrom),
		Ops:          done,
		WarmupOps:    r.warmOps(),
		Totals:       totals,
		WarmupTotals: warmTotals,
		Scheduled:    c.Schedule != nil,
		Cancelled:    r.cancelled.Load(),
	}
	if c.Schedule != nil {
		res.Schedule = c.Schedule.Describe()
	}
	r.errMu.Lock()
	res.Err = r.err
	r.errMu.Unlock()
	res.Stop = r.reason
	if res.Stop == "" {
		if r.quotas != nil || (c.SharedQuota && c.Operations > 0) {
			res.Stop = StopOperations
		} else {
			res.Stop = StopWorkers
		}
	}
	return res
}
