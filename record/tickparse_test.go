package record

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"
)

// tickLines are tick lines as Writer writes them, every field set and
// none, and lines a hand would write (keys out of order or in other
// cases, a key twice, white space, escapes, numbers json reads otherwise,
// null, other kinds).
func tickLines(t testing.TB) [][]byte {
	var out [][]byte
	at := time.Date(2026, 3, 4, 5, 6, 7, 891_000_000, time.FixedZone("x", 3600))
	for _, tk := range []Tick{
		{V: Version, Type: KindTick},
		{V: Version, Type: KindTick, Agent: "client-1", Phase: "run", Op: "READ-MODIFY-WRITE", Warmup: true, Index: 12345, Start: at, End: at.Add(time.Second),
			Count: 50, Errors: 3, Units: 7, Statuses: map[string]int64{"OK": 50, "NOT_FOUND": 3, "": 0}, Late: 2, Overflow: 1,
			Service: "HISTFAAAAJN42pJpmSzMwMCQzwABzFCaEU", Response: "HISTabc+/=", ServiceFailed: "HISTzz", ResponseOverflow: 9},
		{V: Version, Type: KindTick, Index: -4, Count: -1, Statuses: map[string]int64{}},
		{V: 2, Type: KindEnd, Agent: "a\"b\\c\u00e9\n", Op: "<&>"},
	} {
		b, err := json.Marshal(tk)
		if err != nil {
			t.Fatal(err)
		}
		var w bytes.Buffer
		ww := NewWriter(&w)
		if err := ww.Write(tk); err != nil || ww.Flush() != nil {
			t.Fatal(err)
		}
		out = append(out, bytes.TrimSuffix(w.Bytes(), []byte("\n")), b)
	}
	base := string(out[2])
	for _, r := range [][2]string{
		{`"v":1,`, `"V":1,`}, {`"count":50`, `"Count":50`}, {`"op":`, `"op":"x","op":`}, {`"count":50`, `"count":50,"count":51`},
		{`"statuses":{`, `"statuses":{"OK":1,`}, {`"statuses":{`, `"statuses":{},"statuses":{`}, {`,"i":`, `, "i":`}, {`"count":50`, `"count": 50`},
		{`"count":50`, `"count":50.0`}, {`"count":50`, `"count":5e1`}, {`"count":50`, `"count":050`}, {`"count":50`, `"count":-0`},
		{`"count":50`, `"count":"50"`}, {`"count":50`, `"count":null`}, {`"count":50`, `"count":99999999999999999999`},
		{`"count":50`, `"count":999999999999999999`}, {`"warmup":true`, `"warmup":1`}, {`"warmup":true`, `"warmup":tru`},
		{`"agent":"client-1"`, `"agent":"client\u002d1"`}, {`"agent":"client-1"`, `"agent":"cliént"`}, {`"agent":"client-1"`, `"agent":"a\tb"`},
		{`"start":"2026`, `"start":"2026-13`}, {`"start":"2026-03-04T05:06:07.891+01:00"`, `"start":"2026-03-04T05:06:07.891Z"`},
		{`"start":"2026-03-04T05:06:07.891+01:00"`, `"start":null`}, {`"service":`, `"other":1,"service":`}, {`"v":1`, `"v":1.5`},
		{`"type":"tick"`, `"type":"meta"`}, {`}`, `}}`}, {`{`, `[{`}, {`"statuses":{"":0,`, `"statuses":{"":0,,`},
	} {
		out = append(out, []byte(strings.Replace(base, r[0], r[1], 1)))
	}
	return append(out, []byte(`{}`), []byte(`null`), []byte(`{"v":1,"type":"tick"`), []byte(`{"v":1,"type":"tick",}`))
}

// checkTickParse holds parseTick to json.Unmarshal on one line: when it
// reads the line, json reads it alike and without error.
func checkTickParse(t testing.TB, b []byte) bool {
	var got, want Tick
	if !parseTick(b, &got) {
		return false
	}
	if err := json.Unmarshal(b, &want); err != nil {
		t.Fatalf("parseTick read a line json refuses (%v):\n%s", err, b)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("line\n%s\nparseTick %+v\njson      %+v", b, got, want)
	}
	return true
}

// parseTick reads a line only as json.Unmarshal reads it: every line
// above, and each with every byte dropped, doubled or replaced by one of
// JSON's structural or troublesome bytes.
func TestParseTickIsJSON(t *testing.T) {
	read := 0
	for _, line := range tickLines(t) {
		if checkTickParse(t, line) {
			read++
		}
		for i := range line {
			variants := [][]byte{append(bytes.Clone(line[:i]), line[i+1:]...), append(bytes.Clone(line[:i+1]), line[i:]...)}
			for _, c := range []byte("\"\\ ,:{}[]0-.eE+A\x7f\x80\x1f") {
				v := bytes.Clone(line)
				v[i] = c
				variants = append(variants, v)
			}
			for _, v := range variants {
				checkTickParse(t, v)
			}
		}
	}
	if read < 5 {
		t.Fatalf("parseTick read %d of the lines, want the ones Writer writes", read)
	}
}

func FuzzParseTick(f *testing.F) {
	for _, line := range tickLines(f) {
		f.Add(line)
	}
	f.Fuzz(func(t *testing.T, b []byte) { checkTickParse(t, b) })
}
