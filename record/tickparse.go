package record

import (
	"strconv"
	"time"
)

// parseTick reads a tick line written the way Writer writes one (keys in
// lower case, each once, no white space, strings without escapes, plain
// integers) into t, which must be the zero Tick, exactly as json.Unmarshal
// reads it. It returns false for any line it cannot read whole that way,
// leaving t to be read by json.Unmarshal: the two never read a line
// differently, and a reader of a run of hours parses its ticks several
// times faster than through reflection.
func parseTick(b []byte, t *Tick) bool {
	p := tickParser{b: b}
	if !p.skip('{') {
		return false
	}
	var seen uint32
	for {
		key, ok := p.text()
		if !ok || !p.skip(':') {
			return false
		}
		f, ok := p.field(t, key)
		if !ok || seen&(1<<f) != 0 {
			return false
		}
		seen |= 1 << f
		if p.skip(',') {
			continue
		}
		return p.skip('}') && p.at == len(b)
	}
}

// tickParser reads one line from at.
type tickParser struct {
	b  []byte
	at int
}

// field reads the value of one key into its field, returning the field's
// number (for the once-each check).
func (p *tickParser) field(t *Tick, key []byte) (int, bool) {
	switch string(key) {
	case "v":
		return 0, p.int(&t.V)
	case "type":
		return 1, p.str(&t.Type)
	case "agent":
		return 2, p.str(&t.Agent)
	case "phase":
		return 3, p.str(&t.Phase)
	case "op":
		return 4, p.str(&t.Op)
	case "warmup":
		return 5, p.boolean(&t.Warmup)
	case "i":
		return 6, p.int(&t.Index)
	case "start":
		return 7, p.time(&t.Start)
	case "end":
		return 8, p.time(&t.End)
	case "count":
		return 9, p.integer(&t.Count)
	case "errors":
		return 10, p.integer(&t.Errors)
	case "units":
		return 11, p.integer(&t.Units)
	case "statuses":
		return 12, p.counts(&t.Statuses)
	case "late":
		return 13, p.integer(&t.Late)
	case "overflow":
		return 14, p.integer(&t.Overflow)
	case "service":
		return 15, p.str(&t.Service)
	case "response":
		return 16, p.str(&t.Response)
	case "service_failed":
		return 17, p.str(&t.ServiceFailed)
	case "response_overflow":
		return 18, p.integer(&t.ResponseOverflow)
	}
	return 0, false
}

func (p *tickParser) skip(c byte) bool {
	if p.at < len(p.b) && p.b[p.at] == c {
		p.at++
		return true
	}
	return false
}

// text reads a string of printable ASCII without escapes, returning its
// bytes between the quotes.
func (p *tickParser) text() ([]byte, bool) {
	if !p.skip('"') {
		return nil, false
	}
	from := p.at
	for ; p.at < len(p.b); p.at++ {
		switch c := p.b[p.at]; {
		case c == '"':
			p.at++
			return p.b[from : p.at-1], true
		case c < 0x20 || c == '\\' || c >= 0x80:
			return nil, false
		}
	}
	return nil, false
}

func (p *tickParser) str(s *string) bool {
	v, ok := p.text()
	*s = string(v)
	return ok
}

// integer reads a JSON integer (no fraction or exponent, which json reads
// into an integer field as an error) of at most 18 digits.
func (p *tickParser) integer(v *int64) bool {
	from := p.at
	p.skip('-')
	digits := p.at
	for p.at < len(p.b) && p.b[p.at] >= '0' && p.b[p.at] <= '9' {
		p.at++
	}
	n := p.at - digits
	if n == 0 || n > 18 || (n > 1 && p.b[digits] == '0') {
		return false
	}
	if p.at < len(p.b) && (p.b[p.at] == '.' || p.b[p.at] == 'e' || p.b[p.at] == 'E') {
		return false
	}
	x, err := strconv.ParseInt(string(p.b[from:p.at]), 10, 64)
	*v = x
	return err == nil
}

func (p *tickParser) int(v *int) bool {
	var x int64
	ok := p.integer(&x)
	*v = int(x)
	return ok
}

func (p *tickParser) boolean(v *bool) bool {
	for _, lit := range []struct {
		s string
		v bool
	}{{"true", true}, {"false", false}} {
		if len(p.b)-p.at >= len(lit.s) && string(p.b[p.at:p.at+len(lit.s)]) == lit.s {
			p.at += len(lit.s)
			*v = lit.v
			return true
		}
	}
	return false
}

// time reads a time as json does: the quoted string to UnmarshalJSON.
func (p *tickParser) time(v *time.Time) bool {
	from := p.at
	if _, ok := p.text(); !ok {
		return false
	}
	return v.UnmarshalJSON(p.b[from:p.at]) == nil
}

// counts reads an object of integers (the statuses), into a new map as
// json makes one.
func (p *tickParser) counts(m *map[string]int64) bool {
	if !p.skip('{') {
		return false
	}
	*m = map[string]int64{}
	if p.skip('}') {
		return true
	}
	for {
		k, ok := p.text()
		var n int64
		if !ok || !p.skip(':') || !p.integer(&n) {
			return false
		}
		(*m)[string(k)] = n
		if p.skip(',') {
			continue
		}
		return p.skip('}')
	}
}
