package record

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// Writer appends records as JSON lines. Flush after each batch: a killed
// agent keeps every flushed line.
type Writer struct {
	w   *bufio.Writer
	enc *json.Encoder
}

// NewWriter writes to w.
func NewWriter(w io.Writer) *Writer {
	bw := bufio.NewWriterSize(w, 64<<10)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	return &Writer{w: bw, enc: enc}
}

// Write appends one record (a Meta, Tick or End).
func (w *Writer) Write(rec any) error { return w.enc.Encode(rec) }

// Flush pushes buffered records to the underlying writer.
func (w *Writer) Flush() error { return w.w.Flush() }

// File is the decoded content of one record file.
type File struct {
	Meta  *Meta
	Ticks []Tick
	// End is nil when the agent did not finish (killed): every tick written
	// before is still there.
	End *End
	// Truncated is set when the last line was cut off mid-write.
	Truncated bool
}

// Read decodes a record file. name is used in errors, which give the line.
// A last line cut off mid-write (an agent killed while writing) is
// tolerated and reported in Truncated; any other bad line is an error.
func Read(name string, r io.Reader) (*File, error) {
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
			// Only acceptable if it is the last line.
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
