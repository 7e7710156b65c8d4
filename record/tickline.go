package record

import (
	"bytes"
	"encoding/json"
	"slices"
	"strconv"
	"time"

	"github.com/ybbench/ybbench/record/hist"
)

// WriteTick appends t as one line, the line Write makes of it, byte for
// byte, with the histograms given (service, response, serviceFailed) in
// place of t's encoded ones: each one that is non-nil and not empty is
// encoded straight into the line; the others leave t's field as it is.
//
// It exists for the agent, which writes a tick for every measurement name
// every interval for hours: Write (encoding/json) makes a string of every
// histogram, a copy of every time and a sorted copy of every map, and that
// garbage, small at a 1 s tick, is what the agent's memory follows between
// collections. WriteTick builds the line in the writer's own buffers and
// makes none once they have grown.
func (w *Writer) WriteTick(t *Tick, service, response, serviceFailed *hist.Hist) error {
	b, err := w.appendTick(w.line[:0], t, service, response, serviceFailed)
	w.line = b
	if err != nil {
		return err
	}
	_, err = w.w.Write(b)
	return err
}

// tickFields are Tick's JSON names in the order appendTick writes them,
// which is the struct's: a test holds the two together.
var tickFields = []string{"v", "type", "agent", "phase", "op", "warmup", "i", "start", "end", "count", "errors",
	"units", "statuses", "late", "overflow", "service", "response", "service_failed", "response_overflow"}

// appendTick appends t's line to b as encoding/json writes it (the fields
// in the struct's order, omitempty honoured, the map's keys sorted, HTML
// left unescaped as NewWriter sets it, a newline at the end).
func (w *Writer) appendTick(b []byte, t *Tick, service, response, serviceFailed *hist.Hist) ([]byte, error) {
	b = strconv.AppendInt(append(b, `{"v":`...), int64(t.V), 10)
	b = appendString(append(b, `,"type":`...), t.Type)
	b = appendString(append(b, `,"agent":`...), t.Agent)
	b = appendString(append(b, `,"phase":`...), t.Phase)
	b = appendString(append(b, `,"op":`...), t.Op)
	if t.Warmup {
		b = append(b, `,"warmup":true`...)
	}
	b = strconv.AppendInt(append(b, `,"i":`...), int64(t.Index), 10)
	var err error
	if b, err = appendTime(append(b, `,"start":`...), t.Start); err != nil {
		return b, err
	}
	if b, err = appendTime(append(b, `,"end":`...), t.End); err != nil {
		return b, err
	}
	b = strconv.AppendInt(append(b, `,"count":`...), t.Count, 10)
	b = strconv.AppendInt(append(b, `,"errors":`...), t.Errors, 10)
	b = appendNonZero(b, `,"units":`, t.Units)
	if len(t.Statuses) > 0 {
		w.keys = w.keys[:0]
		for k := range t.Statuses {
			w.keys = append(w.keys, k)
		}
		slices.Sort(w.keys)
		b = append(b, `,"statuses":{`...)
		for i, k := range w.keys {
			if i > 0 {
				b = append(b, ',')
			}
			b = strconv.AppendInt(append(appendString(b, k), ':'), t.Statuses[k], 10)
		}
		b = append(b, '}')
	}
	b = appendNonZero(b, `,"late":`, t.Late)
	b = appendNonZero(b, `,"overflow":`, t.Overflow)
	b = w.appendHist(b, `,"service":`, service, t.Service)
	b = w.appendHist(b, `,"response":`, response, t.Response)
	b = w.appendHist(b, `,"service_failed":`, serviceFailed, t.ServiceFailed)
	b = appendNonZero(b, `,"response_overflow":`, t.ResponseOverflow)
	return append(b, "}\n"...), nil
}

// appendNonZero appends a field an omitempty integer keeps.
func appendNonZero(b []byte, field string, v int64) []byte {
	if v == 0 {
		return b
	}
	return strconv.AppendInt(append(b, field...), v, 10)
}

// appendHist appends a histogram field: h's encoding when it holds
// anything, else the string s has (nothing when it is empty).
func (w *Writer) appendHist(b []byte, field string, h *hist.Hist, s string) []byte {
	if h != nil && h.Count() > 0 {
		b = append(append(b, field...), '"')
		return append(w.hists.Append(b, h), '"')
	}
	if s == "" {
		return b
	}
	return appendString(append(b, field...), s)
}

// appendTime appends t as time.Time's MarshalJSON does. The times an agent
// writes are all in its range; one that is not (a year past 9999, a zone
// hour past 23) gets MarshalJSON's own error.
func appendTime(b []byte, t time.Time) ([]byte, error) {
	if y := t.Year(); y < 0 || y > 9999 {
		_, err := t.MarshalJSON()
		return b, err
	}
	if _, off := t.Zone(); off <= -24*3600 || off >= 24*3600 {
		_, err := t.MarshalJSON()
		return b, err
	}
	return append(t.AppendFormat(append(b, '"'), time.RFC3339Nano), '"'), nil
}

// appendString appends s quoted as encoding/json quotes it with HTML left
// unescaped. The names an agent writes are printable ASCII with nothing to
// escape, and are copied; any other string is quoted by encoding/json
// itself, so the rare one is still exact.
func appendString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' {
			var q bytes.Buffer
			enc := json.NewEncoder(&q)
			enc.SetEscapeHTML(false)
			_ = enc.Encode(s) // a string always encodes
			return append(b, bytes.TrimSuffix(q.Bytes(), []byte("\n"))...)
		}
	}
	return append(append(append(b, '"'), s...), '"')
}
