package ycsb

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/ybbench/ybbench/bench"
	"github.com/ybbench/ybbench/record/hist"
)

// IntervalMode is YCSB's measurement.interval: which latency the summary shows.
type IntervalMode int

// The measurement.interval values.
const (
	IntervalOp       IntervalMode = iota // latency from the actual start
	IntervalIntended                     // latency from the intended start, under the plain name
	IntervalBoth                         // both; the intended one named Intended-OP
)

// ParseIntervalMode reads measurement.interval.
func ParseIntervalMode(s string) (IntervalMode, error) {
	switch s {
	case "op":
		return IntervalOp, nil
	case "intended":
		return IntervalIntended, nil
	case "both":
		return IntervalBoth, nil
	}
	return 0, fmt.Errorf("unknown measurement.interval=%s (want op, intended or both)", s)
}

// MeasurementType is YCSB's measurementtype, as far as ybload supports it.
type MeasurementType int

// The supported measurement types.
const (
	MeasureHDR    MeasurementType = iota // hdrhistogram
	MeasureHDRRaw                        // hdrhistogram+raw: an HdrNAME and a RawNAME block per name
	MeasureRaw                           // raw
)

// ParseMeasurementType reads measurementtype.
func ParseMeasurementType(s string) (MeasurementType, error) {
	switch s {
	case "hdrhistogram":
		return MeasureHDR, nil
	case "hdrhistogram+raw":
		return MeasureHDRRaw, nil
	case "raw":
		return MeasureRaw, nil
	case "histogram", "hdrhistogram+histogram", "timeseries":
		return 0, fmt.Errorf("measurementtype=%s is not supported by ybload (use hdrhistogram, hdrhistogram+raw or raw)", s)
	}
	return 0, fmt.Errorf("unknown measurementtype=%s", s)
}

// measurement is one of YCSB's OneMeasurement objects, rebuilt from the
// engine's statistics: a key in YCSB's op or intended map, a display name,
// latencies and (for the plain op names) status counts.
type measurement struct {
	key      string
	name     string
	h        *hist.Hist
	statuses []int64 // nil: this measurement reports no Return= lines
	raw      []uint32
}

// ops whose YCSB measurement carries no status counts.
func noStatus(op bench.Op) bool { return op == OpReadModifyWrite || op == OpCleanup }

// measurementSet rebuilds YCSB's two measurement maps from per-op stats, in
// the order Java's ConcurrentHashMap iterates them (op map first).
func measurementSet(stats []*bench.OpStats, mode IntervalMode, raw map[string][]uint32) []*measurement {
	var opMap, intMap []*measurement
	statusMap := &opMap
	if mode == IntervalIntended {
		statusMap = &intMap
	}
	for _, s := range stats {
		if s.Empty() {
			continue
		}
		name := s.Name
		resp, respFailed := s.Response, s.ResponseFailed
		if resp == nil { // no schedule: intended latency is the op latency
			resp, respFailed = s.Service, s.ServiceFailed
		}
		svc, svcFailed := s.Service, s.ServiceFailed
		if s.Op == OpVerify { // YCSB measures VERIFY under its own name whatever the result
			svc, resp = merged(svc, svcFailed), merged(resp, respFailed)
			svcFailed, respFailed = nil, nil
		}
		var st []int64
		if !noStatus(s.Op) {
			st = s.Statuses
		}
		add := func(m *[]*measurement, key, display string, h *hist.Hist, statuses []int64, rawKey string) {
			if h == nil {
				return
			}
			if h.Count() == 0 && statuses == nil {
				return
			}
			*m = append(*m, &measurement{key: key, name: display, h: h, statuses: statuses, raw: raw[rawKey]})
		}
		if mode != IntervalIntended {
			add(&opMap, name, name, svc, pick(statusMap == &opMap, st), "op:"+name)
			if svcFailed != nil && svcFailed.Count() > 0 {
				add(&opMap, name+"-FAILED", name+"-FAILED", svcFailed, nil, "op:"+name+"-FAILED")
			}
		}
		if mode != IntervalOp {
			prefix := ""
			if mode == IntervalBoth {
				prefix = "Intended-"
			}
			add(&intMap, name, prefix+name, resp, pick(statusMap == &intMap, st), "intended:"+name)
			if respFailed != nil && respFailed.Count() > 0 {
				add(&intMap, name+"-FAILED", prefix+name+"-FAILED", respFailed, nil, "intended:"+name+"-FAILED")
			}
		}
	}
	return append(chmOrder(opMap), chmOrder(intMap)...)
}

func pick(ok bool, st []int64) []int64 {
	if ok {
		return st
	}
	return nil
}

func merged(a, b *hist.Hist) *hist.Hist {
	if b == nil || b.Count() == 0 {
		return a
	}
	m := a.Clone()
	m.Merge(b)
	return m
}

func chmOrder(ms []*measurement) []*measurement {
	keys := make([]string, len(ms))
	for i, m := range ms {
		keys[i] = m.key
	}
	out := make([]*measurement, 0, len(ms))
	for _, i := range javaMapOrder(keys, true) {
		out = append(out, ms[i])
	}
	return out
}

// ordinal names a percentile as YCSB does: 95th, 99th, 1st, 2nd, 3rd,
// 11th–13th, or Java's Double.toString for non-integers (99.9).
func ordinal(p float64) string {
	if p == float64(int64(p)) {
		j := int64(p)
		switch j % 100 {
		case 11, 12, 13:
			return strconv.FormatInt(j, 10) + "th"
		}
		return strconv.FormatInt(j, 10) + [...]string{"th", "st", "nd", "rd", "th", "th", "th", "th", "th", "th"}[j%10]
	}
	return JavaDouble(p)
}

// ParsePercentiles reads hdrhistogram.percentiles ("95,99").
func ParsePercentiles(s string) ([]float64, error) {
	var out []float64
	for _, f := range strings.Split(s, ",") {
		v, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		if err != nil || v < 0 || v > 100 {
			return nil, fmt.Errorf("hdrhistogram.percentiles=%s: %q is not a percentile", s, f)
		}
		out = append(out, v)
	}
	return out, nil
}
