package record

import (
	"bufio"
	"encoding/json"
	"io"

	"github.com/ybbench/ybbench/record/hist"
)

// Writer appends records as JSON lines. Flush after each batch: a killed
// agent keeps every flushed line.
type Writer struct {
	w   *bufio.Writer
	enc *json.Encoder
	// line, keys and hists are WriteTick's buffers, kept between ticks.
	line  []byte
	keys  []string
	hists hist.Encoder
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
// It holds every tick of the file: a reader of long runs reads them one
// at a time with a Scanner.
func Read(name string, r io.Reader) (*File, error) {
	s := NewScanner(name, r)
	var ticks []Tick
	for s.Next() {
		ticks = append(ticks, *s.Tick())
	}
	if err := s.Err(); err != nil {
		return nil, err
	}
	f := s.File()
	f.Ticks = ticks
	return f, nil
}
