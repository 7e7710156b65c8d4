package record

import (
	"bytes"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/ybbench/ybbench/record/hist"
)

// WriteTick's line is Write's, byte for byte, over ticks drawn at random
// and written one after another by one writer:
// names to escape (quotes, HTML, control bytes, non-ASCII, invalid UTF-8),
// times in several zones with and without fractions, fields at zero and
// not, status maps nil, empty and full, histograms given, empty or absent.
func TestWriteTickWritesWhatWriteWrites(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 31))
	names := []string{"READ", "UPDATE", "READ-MODIFY-WRITE", "Read", "EVENT", "", `a"b`, `c\d`, "<&>", "tab\there",
		"nl\n", "\x01", "żółw", "\u2028", "\xff\xfe", "client-1.example"}
	zones := []*time.Location{time.UTC, time.FixedZone("IST", 5*3600+1800), time.FixedZone("W", -7*3600), time.FixedZone("LMT", 1172)}
	pick := func() string { return names[rng.IntN(len(names))] }
	num := func() int64 {
		if rng.IntN(3) == 0 {
			return 0
		}
		return rng.Int64N(1 << 40)
	}
	histOf := func() *hist.Hist {
		switch rng.IntN(3) {
		case 0:
			return nil
		case 1:
			return hist.New()
		}
		h := hist.New()
		for range 1 + rng.IntN(200) {
			h.Record(rng.Int64N(5_000_000))
		}
		return h
	}
	// One writer for every tick, as an agent has: its buffers are reused.
	var got, ref bytes.Buffer
	w, rw := NewWriter(&got), NewWriter(&ref)
	for i := range 600 {
		start := time.Date(2000+rng.IntN(40), time.Month(1+rng.IntN(12)), 1+rng.IntN(28), rng.IntN(24), rng.IntN(60), rng.IntN(60), 0, zones[rng.IntN(len(zones))])
		if rng.IntN(2) == 0 {
			start = start.Add(time.Duration(rng.Int64N(int64(time.Second))))
		}
		tk := Tick{
			V: Version, Type: KindTick, Agent: pick(), Phase: pick(), Op: pick(), Warmup: rng.IntN(2) == 0,
			Index: rng.IntN(100000), Start: start, End: start.Add(time.Duration(rng.Int64N(int64(2 * time.Second)))),
			Count: num(), Errors: num(), Units: num(), Late: num(), Overflow: num(), ResponseOverflow: num(),
		}
		switch rng.IntN(3) {
		case 1:
			tk.Statuses = map[string]int64{}
		case 2:
			tk.Statuses = map[string]int64{}
			for range 1 + rng.IntN(4) {
				tk.Statuses[pick()] = num()
			}
		}
		if rng.IntN(4) == 0 {
			tk.Service = "preset-" + pick()
		}
		svc, resp, failed := histOf(), histOf(), histOf()

		got.Reset()
		if err := w.WriteTick(&tk, svc, resp, failed); err != nil {
			t.Fatalf("tick %d: %v", i, err)
		}
		w.Flush()

		want := tk
		for _, f := range []struct {
			h  *hist.Hist
			to *string
		}{{svc, &want.Service}, {resp, &want.Response}, {failed, &want.ServiceFailed}} {
			if f.h != nil && f.h.Count() > 0 {
				*f.to, _ = f.h.Encode()
			}
		}
		ref.Reset()
		if err := rw.Write(&want); err != nil {
			t.Fatalf("tick %d: the reference: %v", i, err)
		}
		rw.Flush()
		if got.String() != ref.String() {
			t.Fatalf("tick %d:\n got %q\nwant %q", i, got.String(), ref.String())
		}
	}
}

// The fields WriteTick writes, in its order, are Tick's JSON names in the
// struct's order: a field added to Tick fails here until it is written.
func TestWriteTickKnowsEveryField(t *testing.T) {
	var names []string
	typ := reflect.TypeFor[Tick]()
	for i := range typ.NumField() {
		names = append(names, strings.Split(typ.Field(i).Tag.Get("json"), ",")[0])
	}
	if !reflect.DeepEqual(names, tickFields) {
		t.Fatalf("Tick's fields %v, WriteTick writes %v", names, tickFields)
	}
}

// A time MarshalJSON refuses is refused, and nothing of the line is
// written; a time in range beside it is written (the positive control).
func TestWriteTickRefusesATimeOutOfRange(t *testing.T) {
	var out bytes.Buffer
	w := NewWriter(&out)
	ok := Tick{V: Version, Type: KindTick, Op: "READ", Start: time.Unix(0, 0).UTC(), End: time.Unix(1, 0).UTC()}
	if err := w.WriteTick(&ok, nil, nil, nil); err != nil {
		t.Fatal(err)
	}
	bad := ok
	bad.End = time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)
	err := w.WriteTick(&bad, nil, nil, nil)
	if err == nil || !strings.Contains(err.Error(), "year outside of range") {
		t.Fatalf("a year past 9999: %v, want MarshalJSON's refusal", err)
	}
	w.Flush()
	if n := strings.Count(out.String(), "\n"); n != 1 || !strings.Contains(out.String(), `"end":"1970-01-01T00:00:01Z"`) {
		t.Fatalf("wrote %q, want the one good line", out.String())
	}
}
