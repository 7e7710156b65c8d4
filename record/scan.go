package record

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// Scanner reads a record file one line at a time and hands over each tick
// as it is read, so that a reader of a run of hours holds one tick, not
// every tick of the file. It reads exactly as Read does (Read is built on
// it): the same lines are accepted, with the same errors and the same
// tolerance of a last line cut off mid-write.
type Scanner struct {
	name string
	sc   *bufio.Scanner
	// f holds the Meta and End records as they are met, and Truncated at
	// the end; its Ticks stays empty.
	f          File
	tick       Tick
	line       int
	pendingErr error
	err        error
	done       bool
}

// NewScanner reads r; name is used in errors, which give the line.
func NewScanner(name string, r io.Reader) *Scanner {
	sc := bufio.NewScanner(r)
	// The buffer grows to the longest line (up to 64 MiB, as Read always
	// allowed); most files never need more than the first 64 KiB.
	sc.Buffer(make([]byte, 0, 64<<10), 64<<20)
	return &Scanner{name: name, sc: sc}
}

// Next reads up to the next tick. It returns false at the end of the file
// or at an error; Err says which.
func (s *Scanner) Next() bool {
	if s.done {
		return false
	}
	for s.sc.Scan() {
		s.line++
		if s.pendingErr != nil {
			return s.fail(s.pendingErr)
		}
		b := bytes.TrimSpace(s.sc.Bytes())
		if len(b) == 0 {
			continue
		}
		tick, err := s.parse(b)
		if err != nil {
			return s.fail(err)
		}
		if tick {
			return true
		}
	}
	s.done = true
	if err := s.sc.Err(); err != nil {
		s.err = fmt.Errorf("%s: %w", s.name, err)
		return false
	}
	if s.pendingErr != nil {
		s.f.Truncated = true
	}
	if s.f.Meta == nil {
		s.err = errors.New(s.name + ": no meta record")
	}
	return false
}

// Tick is the tick Next read; it is overwritten by the next call.
func (s *Scanner) Tick() *Tick { return &s.tick }

// File is what the file said besides its ticks: its Meta and End records
// as far as they were read, and, once Next returned false, whether the
// last line was cut off.
func (s *Scanner) File() *File { return &s.f }

// Err is the error that ended the reading, nil at a good end of the file
// (or before it).
func (s *Scanner) Err() error { return s.err }

func (s *Scanner) fail(err error) bool {
	s.err, s.done = err, true
	return false
}

// parse reads one line, reporting whether it was a tick. A tick, nearly
// every line, is read once (by parseTick when written as Writer writes
// it, else by json.Unmarshal): a line that reads as a tick of this
// version whole is one, since its kind and version would read the same
// alone. Every other line is read as Read always read it, its kind first.
func (s *Scanner) parse(b []byte) (bool, error) {
	s.tick = Tick{}
	if parseTick(b, &s.tick) && s.tick.Type == KindTick && s.tick.V == Version {
		return true, nil
	}
	s.tick = Tick{}
	if json.Unmarshal(b, &s.tick) == nil && s.tick.Type == KindTick && s.tick.V == Version {
		return true, nil
	}
	var head struct {
		V    int    `json:"v"`
		Type string `json:"type"`
	}
	if err := json.Unmarshal(b, &head); err != nil {
		// Only acceptable if it is the last line.
		s.pendingErr = fmt.Errorf("%s:%d: not a record: %w", s.name, s.line, err)
		return false, nil
	}
	if head.V != Version {
		return false, fmt.Errorf("%s:%d: record version %d, this reader knows %d", s.name, s.line, head.V, Version)
	}
	var err error
	switch head.Type {
	case KindMeta:
		if s.f.Meta != nil {
			return false, fmt.Errorf("%s:%d: second meta record", s.name, s.line)
		}
		s.f.Meta = &Meta{}
		err = json.Unmarshal(b, s.f.Meta)
		if err == nil && s.f.Meta.Geometry != Shared {
			return false, fmt.Errorf("%s:%d: histogram geometry %+v, want %+v", s.name, s.line, s.f.Meta.Geometry, Shared)
		}
	case KindTick:
		s.tick = Tick{}
		err = json.Unmarshal(b, &s.tick)
	case KindEnd:
		s.f.End = &End{}
		err = json.Unmarshal(b, s.f.End)
	default:
		return false, fmt.Errorf("%s:%d: unknown record type %q", s.name, s.line, head.Type)
	}
	if err != nil {
		return false, fmt.Errorf("%s:%d: %s record: %w", s.name, s.line, head.Type, err)
	}
	return head.Type == KindTick, nil
}
