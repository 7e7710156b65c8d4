package ycsb

import (
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// Source says where a property value came from, so errors can name it.
type Source struct {
	File string // property file, or "" for the command line or a default
	Line int    // line in File (the first line of a continued logical line)
	Flag string // the command-line flag that set it ("-p", "-threads", …)
}

func (s Source) String() string {
	switch {
	case s.File != "":
		return fmt.Sprintf("%s:%d", s.File, s.Line)
	case s.Flag != "":
		return "command line (" + s.Flag + ")"
	}
	return "default"
}

// isDefault says that no file or option set the value: what a property
// reads as when nobody gave it.
func (s Source) isDefault() bool { return s.File == "" && s.Flag == "" }

type entry struct {
	value string
	src   Source
}

// Props is a Java-style property set that remembers where every value came
// from. YCSB's precedence applies: -P files in the order given, each
// overriding the one before, and every command-line setting (-p, -threads,
// -target, -s, …) over all files, whatever its position.
type Props struct {
	files map[string]entry
	flags map[string]entry
}

// NewProps returns an empty property set.
func NewProps() *Props { return &Props{files: map[string]entry{}, flags: map[string]entry{}} }

// SetFile sets a value as a property file would.
func (p *Props) SetFile(key, value string, src Source) { p.files[key] = entry{value, src} }

// SetFlag sets a value from the command line; it beats every file.
func (p *Props) SetFlag(key, value, flag string) {
	p.flags[key] = entry{value, Source{Flag: flag}}
}

func (p *Props) lookup(key string) (entry, bool) {
	if e, ok := p.flags[key]; ok {
		return e, true
	}
	e, ok := p.files[key]
	return e, ok
}

// Has reports whether key is set.
func (p *Props) Has(key string) bool { _, ok := p.lookup(key); return ok }

// Get returns the value of key, or def.
func (p *Props) Get(key, def string) string {
	if e, ok := p.lookup(key); ok {
		return e.value
	}
	return def
}

// SourceOf says where key was set.
func (p *Props) SourceOf(key string) Source {
	e, _ := p.lookup(key)
	return e.src
}

// Keys returns every key set, sorted.
func (p *Props) Keys() []string {
	seen := map[string]bool{}
	for k := range p.files {
		seen[k] = true
	}
	for k := range p.flags {
		seen[k] = true
	}
	keys := make([]string, 0, len(seen))
	for k := range seen {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// PropError is a bad property value, naming where it was set.
type PropError struct {
	Key, Value string
	Src        Source
	Msg        string
}

func (e *PropError) Error() string {
	return fmt.Sprintf("%s: property %s=%q: %s", e.Src, e.Key, e.Value, e.Msg)
}

func (p *Props) bad(key, msg string) error {
	e, _ := p.lookup(key)
	return &PropError{Key: key, Value: e.value, Src: e.src, Msg: msg}
}

// Int returns key as a Java int (32-bit), or def when unset.
func (p *Props) Int(key string, def int64) (int64, error) {
	return p.integer(key, def, 32)
}

// Long returns key as a Java long (64-bit), or def when unset.
func (p *Props) Long(key string, def int64) (int64, error) {
	return p.integer(key, def, 64)
}

func (p *Props) integer(key string, def int64, bits int) (int64, error) {
	e, ok := p.lookup(key)
	if !ok {
		return def, nil
	}
	v, err := strconv.ParseInt(strings.TrimSpace(e.value), 10, bits)
	if err != nil {
		if errors.Is(err, strconv.ErrRange) {
			return 0, p.bad(key, fmt.Sprintf("out of range for a %d-bit integer", bits))
		}
		return 0, p.bad(key, "not an integer")
	}
	return v, nil
}

// Float returns key as a double, or def when unset.
func (p *Props) Float(key string, def float64) (float64, error) {
	e, ok := p.lookup(key)
	if !ok {
		return def, nil
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(e.value), 64)
	if err != nil {
		return 0, p.bad(key, "not a number")
	}
	return v, nil
}

// Bool returns key as Java's Boolean.parseBoolean does: "true" in any case
// is true, anything else false.
func (p *Props) Bool(key string, def bool) bool {
	e, ok := p.lookup(key)
	if !ok {
		return def
	}
	return strings.EqualFold(strings.TrimSpace(e.value), "true")
}

// StrictBool reads one of ybload's own boolean properties: true or false
// (any case), or def when unset; anything else is an error naming the
// property, where YCSB's own properties follow Bool (Java's lenient parse).
func (p *Props) StrictBool(key string, def bool) (bool, error) {
	e, ok := p.lookup(key)
	if !ok {
		return def, nil
	}
	switch strings.ToLower(strings.TrimSpace(e.value)) {
	case "true":
		return true, nil
	case "false":
		return false, nil
	}
	return def, p.bad(key, "want true or false")
}

// LoadFile reads a Java .properties file into p (values override earlier
// files). name is used in errors.
func (p *Props) LoadFile(name string, data []byte) error {
	return parseProperties(name, data, func(k, v string, line int) {
		p.SetFile(k, v, Source{File: name, Line: line})
	})
}

// parseProperties implements java.util.Properties.load: ISO-8859-1 text,
// logical lines joined by a trailing odd backslash, comments (# or !) and
// blank lines skipped, the key ending at the first unescaped '=', ':' or
// white space, escapes \t \n \r \f \uXXXX and \c = c.
func parseProperties(name string, data []byte, set func(key, value string, line int)) error {
	// ISO-8859-1: every byte is one code point.
	runes := make([]rune, len(data))
	for i, b := range data {
		runes[i] = rune(b)
	}
	lines := splitLines(runes)
	for i := 0; i < len(lines); i++ {
		start := i
		l := trimLeft(lines[i])
		if len(l) == 0 || l[0] == '#' || l[0] == '!' {
			continue
		}
		// Join continuation lines: an odd number of trailing backslashes.
		logical := append([]rune(nil), l...)
		for endsWithOddBackslash(logical) && i+1 < len(lines) {
			logical = logical[:len(logical)-1]
			i++
			logical = append(logical, trimLeft(lines[i])...)
		}
		if endsWithOddBackslash(logical) { // at end of file: Java drops the backslash
			logical = logical[:len(logical)-1]
		}
		key, value, err := splitKeyValue(logical)
		if err != nil {
			return fmt.Errorf("%s:%d: %w", name, start+1, err)
		}
		set(key, value, start+1)
	}
	return nil
}

func splitLines(r []rune) [][]rune {
	var out [][]rune
	s := 0
	for i := 0; i < len(r); i++ {
		if r[i] == '\n' || r[i] == '\r' {
			out = append(out, r[s:i])
			if r[i] == '\r' && i+1 < len(r) && r[i+1] == '\n' {
				i++
			}
			s = i + 1
		}
	}
	if s < len(r) {
		out = append(out, r[s:])
	}
	return out
}

func isSpace(c rune) bool { return c == ' ' || c == '\t' || c == '\f' }

func trimLeft(r []rune) []rune {
	for len(r) > 0 && isSpace(r[0]) {
		r = r[1:]
	}
	return r
}

func endsWithOddBackslash(r []rune) bool {
	n := 0
	for i := len(r) - 1; i >= 0 && r[i] == '\\'; i-- {
		n++
	}
	return n%2 == 1
}

func splitKeyValue(l []rune) (string, string, error) {
	i := 0
	for i < len(l) {
		c := l[i]
		if c == '\\' {
			i += 2
			continue
		}
		if c == '=' || c == ':' || isSpace(c) {
			break
		}
		i++
	}
	if i > len(l) {
		i = len(l)
	}
	rawKey := l[:i]
	rest := l[i:]
	// Separator: white space, then at most one '=' or ':', then white space.
	rest = trimLeft(rest)
	if len(rest) > 0 && (rest[0] == '=' || rest[0] == ':') {
		rest = trimLeft(rest[1:])
	}
	key, err := unescape(rawKey)
	if err != nil {
		return "", "", err
	}
	value, err := unescape(rest)
	if err != nil {
		return "", "", err
	}
	return key, value, nil
}

func unescape(r []rune) (string, error) {
	var b strings.Builder
	for i := 0; i < len(r); i++ {
		c := r[i]
		if c != '\\' || i+1 >= len(r) {
			b.WriteRune(c)
			continue
		}
		i++
		switch c = r[i]; c {
		case 't':
			b.WriteByte('\t')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 'f':
			b.WriteByte('\f')
		case 'u':
			if i+4 >= len(r) {
				return "", errors.New(`malformed \uxxxx encoding`)
			}
			v, err := strconv.ParseUint(string(r[i+1:i+5]), 16, 16)
			if err != nil {
				return "", errors.New(`malformed \uxxxx encoding`)
			}
			b.WriteRune(rune(v))
			i += 4
		default:
			b.WriteRune(c)
		}
	}
	return b.String(), nil
}
