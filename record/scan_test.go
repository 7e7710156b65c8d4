package record

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"testing"
	"time"
)

// referenceRead is Read as it was before the Scanner, kept to hold the
// Scanner to it: every file reads alike, ticks, errors and all.
func referenceRead(name string, r io.Reader) (*File, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 1<<20), 64<<20)
	f := &File{}
	var pendingErr error
	line := 0
	for sc.Scan() {
		line++
		if pendingErr != nil {
			return nil, pendingErr
		}
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 {
			continue
		}
		var head struct {
			V    int    `json:"v"`
			Type string `json:"type"`
		}
		if err := json.Unmarshal(b, &head); err != nil {
			pendingErr = fmt.Errorf("%s:%d: not a record: %w", name, line, err)
			continue
		}
		if head.V != Version {
			return nil, fmt.Errorf("%s:%d: record version %d, this reader knows %d", name, line, head.V, Version)
		}
		var err error
		switch head.Type {
		case KindMeta:
			if f.Meta != nil {
				return nil, fmt.Errorf("%s:%d: second meta record", name, line)
			}
			f.Meta = &Meta{}
			err = json.Unmarshal(b, f.Meta)
			if err == nil && f.Meta.Geometry != Shared {
				return nil, fmt.Errorf("%s:%d: histogram geometry %+v, want %+v", name, line, f.Meta.Geometry, Shared)
			}
		case KindTick:
			var t Tick
			err = json.Unmarshal(b, &t)
			f.Ticks = append(f.Ticks, t)
		case KindEnd:
			f.End = &End{}
			err = json.Unmarshal(b, f.End)
		default:
			return nil, fmt.Errorf("%s:%d: unknown record type %q", name, line, head.Type)
		}
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %s record: %w", name, line, head.Type, err)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if pendingErr != nil {
		f.Truncated = true
	}
	if f.Meta == nil {
		return nil, errors.New(name + ": no meta record")
	}
	return f, nil
}

// recordFile is a file as an agent writes it: meta, ticks (warm-up
// first, with and without statuses, units and histograms), end.
func recordFile(t *testing.T) []byte {
	t.Helper()
	var b bytes.Buffer
	w := NewWriter(&b)
	at := time.Date(2026, 3, 4, 5, 6, 7, 891_000_000, time.UTC)
	write := func(rec any) {
		if err := w.Write(rec); err != nil {
			t.Fatal(err)
		}
	}
	write(&Meta{V: Version, Type: KindMeta, Agent: "a", Workload: "w", Phase: "run", Start: at, IntervalMS: 1000, Threads: 4, Geometry: Shared,
		Ops: []string{"READ", "UPDATE"}, Statuses: []string{"OK"}, Settings: map[string]string{"k": "v"}})
	for i := 0; i < 4; i++ {
		for _, op := range []string{"READ", "UPDATE"} {
			tk := &Tick{V: Version, Type: KindTick, Agent: "a", Phase: "run", Op: op, Warmup: i == 0, Index: i,
				Start: at.Add(time.Duration(i) * time.Second), End: at.Add(time.Duration(i+1) * time.Second), Count: int64(10 * i), Errors: int64(i % 2)}
			if i%2 == 0 {
				tk.Statuses, tk.Service, tk.Units, tk.Late = map[string]int64{"OK": int64(10 * i)}, "HISTu"+op, 3, 1
			}
			write(tk)
		}
	}
	write(&End{V: Version, Type: KindEnd, Agent: "a", Phase: "run", MeasureStart: at.Add(time.Second), End: at.Add(4 * time.Second), Ops: 60, Stop: "duration"})
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// Read (on the Scanner) reads every file as it always did: a whole file,
// the file cut at every byte, each line dropped, doubled or spoiled, and
// lines only a hand would write (keys in other cases, a key twice, a
// record of another kind or version, a tick before the meta).
func TestReadIsTheReference(t *testing.T) {
	file := recordFile(t)
	lines := strings.SplitAfter(string(file), "\n")
	var inputs []string
	for cut := 0; cut <= len(file); cut++ {
		inputs = append(inputs, string(file[:cut]))
	}
	for i := range lines {
		drop := strings.Join(append(append([]string{}, lines[:i]...), lines[i+1:]...), "")
		double := strings.Join(append(append([]string{}, lines[:i+1]...), lines[i:]...), "")
		spoil := strings.Join(append(append(append([]string{}, lines[:i]...), "{\"v\":1,\"type\":\n"), lines[i+1:]...), "")
		inputs = append(inputs, drop, double, spoil, spoil+"\n\n")
	}
	tick := strings.TrimSuffix(lines[1], "\n")
	for _, odd := range []string{
		strings.Replace(tick, `"type":"tick"`, `"TYPE":"tick"`, 1),
		strings.Replace(tick, `"type":"tick"`, `"type":"end","Type":"tick"`, 1),
		strings.Replace(tick, `"type":"tick"`, `"type":"tick","type":"meta"`, 1),
		strings.Replace(tick, `"v":1`, `"v":2`, 1),
		strings.Replace(tick, `"v":1`, `"v":"1"`, 1),
		strings.Replace(tick, `"count":0`, `"count":"x"`, 1),
		strings.Replace(tick, `"warmup":true`, `"warmup":1`, 1),
		strings.Replace(tick, `"type":"tick"`, `"type":"other"`, 1),
		`{"v":1}`, `[1,2]`, `null`, `{"v":1,"type":"tick","i":"nope"}`,
	} {
		inputs = append(inputs, lines[0]+odd+"\n"+strings.Join(lines[2:], ""), odd+"\n"+strings.Join(lines, ""))
	}
	inputs = append(inputs, strings.Join(lines[1:], "")+lines[0], "", "\n\n", "  "+strings.Join(lines, "  \n"))
	for i, in := range inputs {
		got, gerr := Read("f", strings.NewReader(in))
		want, werr := referenceRead("f", strings.NewReader(in))
		if (gerr == nil) != (werr == nil) || (gerr != nil && gerr.Error() != werr.Error()) {
			t.Fatalf("input %d:\n%s\nerror %v, want %v", i, in, gerr, werr)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("input %d:\n%s\nread %+v, want %+v", i, in, got, want)
		}
	}
}

// A Scanner hands over the ticks one at a time, each a tick of its own
// (nothing of the one before left in it), and the meta and end records
// beside them.
func TestScannerHandsOverEachTick(t *testing.T) {
	file := recordFile(t)
	want, err := Read("f", bytes.NewReader(file))
	if err != nil {
		t.Fatal(err)
	}
	s := NewScanner("f", bytes.NewReader(file))
	var got []Tick
	for s.Next() {
		got = append(got, *s.Tick())
	}
	if s.Err() != nil || s.Next() {
		t.Fatalf("after the end: %v", s.Err())
	}
	if !reflect.DeepEqual(got, want.Ticks) || !reflect.DeepEqual(s.File().Meta, want.Meta) || !reflect.DeepEqual(s.File().End, want.End) {
		t.Fatalf("scanned %+v\nwant %+v", got, want.Ticks)
	}
}
