package ysql

import "github.com/ybbench/ybbench/bench/ycsb"

// keyParam is the key as a statement parameter.
func (d *db) keyParam(key string) any {
	d.key = key
	if d.keyArg == nil {
		d.keyArg = &d.key
	}
	return d.keyArg
}

// countParam is a scan's row count as a statement parameter.
func (d *db) countParam(n int) any {
	d.count = n
	if d.countArg == nil {
		d.countArg = &d.count
	}
	return d.countArg
}

// materialize appends the values' bytes to the parameters.
func (d *db) materialize(vals []ycsb.Field) {
	d.buf = d.buf[:0]
	n := 0
	for _, f := range vals {
		n += f.Value.Len()
	}
	if cap(d.buf) < n {
		d.buf = make([]byte, 0, n)
	}
	if len(d.vals) < len(vals) {
		d.vals = make([][]byte, len(vals))
		d.valArgs = make([]any, len(vals))
		for i := range d.vals {
			d.valArgs[i] = &d.vals[i]
		}
	}
	for i, f := range vals {
		start := len(d.buf)
		d.buf = f.Value.AppendTo(d.buf)
		d.vals[i] = d.buf[start:len(d.buf):len(d.buf)]
		d.args = append(d.args, d.valArgs[i])
	}
}

// ownArgs copies parameters for a statement that runs later (a queued
// batch): the worker's own fields change with the next statement.
func ownArgs(args []any) []any {
	out := make([]any, len(args))
	for i, a := range args {
		switch v := a.(type) {
		case *string:
			a = *v
		case *int:
			a = *v
		case *[]byte:
			a = append([]byte(nil), *v...)
		}
		out[i] = a
	}
	return out
}
