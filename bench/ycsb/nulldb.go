package ycsb

import (
	"context"
	"fmt"
	"log/slog"
)

// NullBinding does nothing with the data, but by default produces every
// value's bytes and is measured like a real binding: running it measures the
// agent's own cost (generators, values, measurement, records).
type NullBinding struct {
	// skipValues leaves the values unread (null.values=skip), as YCSB's
	// BasicDB does without basicdb.verbose: its RandomByteIterator makes a
	// field's bytes only when they are read.
	skipValues bool
}

// NewNullBinding is the "null" binding's factory. null.values=produce (the
// default) makes every value's bytes, as a real binding would send them;
// skip leaves them unmade, for a comparison with YCSB's BasicDB.
func NewNullBinding(p *Props, _ *slog.Logger) (Binding, error) {
	switch v := p.Get("null.values", "produce"); v {
	case "produce":
		return NullBinding{}, nil
	case "skip":
		return NullBinding{skipValues: true}, nil
	default:
		return nil, fmt.Errorf("%s: null.values=%s: want produce or skip", p.SourceOf("null.values"), v)
	}
}

// NewDB returns a worker's null DB.
func (b NullBinding) NewDB(context.Context, int, int) (DB, error) {
	return &nullDB{skip: b.skipValues}, nil
}

// Settings records whether the values were made.
func (b NullBinding) Settings() map[string]string {
	if b.skipValues {
		return map[string]string{"null.values": "skip (values not made, as YCSB's BasicDB without verbose)"}
	}
	return map[string]string{"null.values": "produce"}
}

type nullDB struct {
	buf  []byte
	skip bool
}

// BorrowsKeys: the null DB never looks at a key.
func (n *nullDB) BorrowsKeys() bool { return true }

func (n *nullDB) use(vals []Field) {
	if n.skip {
		return
	}
	n.buf = n.buf[:0]
	for _, f := range vals {
		n.buf = f.Value.AppendTo(n.buf)
	}
}

func (n *nullDB) Read(context.Context, string, string, []string, map[string][]byte) Status { return OK }
func (n *nullDB) Scan(context.Context, string, string, int, []string) (int, Status)        { return 0, OK }
func (n *nullDB) Update(_ context.Context, _, _ string, v []Field) Status                  { n.use(v); return OK }
func (n *nullDB) Insert(_ context.Context, _, _ string, v []Field) Status                  { n.use(v); return OK }
func (n *nullDB) Delete(context.Context, string, string) Status                            { return OK }
func (n *nullDB) Cleanup(context.Context) error                                            { return nil }
