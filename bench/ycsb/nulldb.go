package ycsb

import (
	"context"
	"log/slog"
)

// NullBinding does nothing with the data, but produces every value's bytes
// and is measured like a real binding: running it measures the agent's own
// cost (generators, values, measurement, records).
type NullBinding struct{}

// NewNullBinding is the "null" binding's factory.
func NewNullBinding(*Props, *slog.Logger) (Binding, error) { return NullBinding{}, nil }

// NewDB returns a worker's null DB.
func (NullBinding) NewDB(context.Context, int, int) (DB, error) { return &nullDB{}, nil }

type nullDB struct{ buf []byte }

func (n *nullDB) use(vals []Field) {
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
