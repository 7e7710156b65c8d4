package ysql

import (
	"bytes"
	"testing"

	"github.com/jackc/pgx/v5/pgtype"
)

// The binding passes its parameters by pointer; pgx must send exactly what
// it sends for the values themselves: the same bytes for every column type
// a YCSB table may have, in both formats, and the same inferred type where
// the statement has none (the exec and simple-protocol modes).
func TestPointerParametersEncodeAsTheirValues(t *testing.T) {
	m := pgtype.NewMap()
	key, count, val := "user6284781860667377211", 37, []byte("value bytes")
	for _, c := range []struct {
		name   string
		v, ptr any
		oids   []uint32
	}{
		{"key", key, &key, []uint32{0, pgtype.TextOID, pgtype.VarcharOID, pgtype.BPCharOID}},
		{"count", count, &count, []uint32{0, pgtype.Int4OID, pgtype.Int8OID}},
		{"value", val, &val, []uint32{0, pgtype.TextOID, pgtype.VarcharOID, pgtype.ByteaOID}},
	} {
		for _, oid := range c.oids {
			for _, format := range []int16{pgtype.TextFormatCode, pgtype.BinaryFormatCode} {
				want, werr := m.Encode(oid, format, c.v, nil)
				got, gerr := m.Encode(oid, format, c.ptr, nil)
				if (werr == nil) != (gerr == nil) || !bytes.Equal(got, want) {
					t.Errorf("%s as oid %d format %d: %q (%v), the value gives %q (%v)", c.name, oid, format, got, gerr, want, werr)
				}
			}
		}
		vt, _ := m.TypeForValue(c.v)
		pt, _ := m.TypeForValue(c.ptr)
		if vt == nil || pt == nil || vt.OID != pt.OID {
			t.Errorf("%s: inferred types %v and %v", c.name, pt, vt)
		}
	}
}

// A queued batch gets copies: the worker's fields change with the next
// statement.
func TestOwnArgsCopiesTheWorkersFields(t *testing.T) {
	key, count, val := "user1", 5, []byte("abc")
	got := ownArgs([]any{&key, &count, &val})
	key, count, val[0] = "user2", 6, 'X'
	if got[0] != "user1" || got[1] != 5 || string(got[2].([]byte)) != "abc" {
		t.Errorf("queued parameters %v", got)
	}
}
