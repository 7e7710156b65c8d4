package ycql

import (
	"errors"
	"reflect"
	"testing"
)

// The reader's statement is the reference driver's, text for text.
func TestPartitionsQueryIsTheReferenceStatement(t *testing.T) {
	const ref = "SELECT keyspace_name, table_name, start_key, end_key, replica_addresses FROM system.partitions"
	if PartitionsQuery != ref {
		t.Fatalf("PartitionsQuery = %q, want %q", PartitionsQuery, ref)
	}
}

// fakeIter yields rows in PartitionsQuery's column order.
type fakeIter struct {
	rows [][]interface{}
	err  error
}

func (f *fakeIter) Scan(dest ...interface{}) bool {
	if len(f.rows) == 0 {
		return false
	}
	r := f.rows[0]
	f.rows = f.rows[1:]
	for i, d := range dest {
		reflect.ValueOf(d).Elem().Set(reflect.ValueOf(r[i]))
	}
	return true
}

func (f *fakeIter) Close() error { return f.err }

func TestScanPartitionRowsReadsEveryColumn(t *testing.T) {
	it := &fakeIter{rows: [][]interface{}{
		{"ks", "t", []byte{}, []byte{0x80, 0x00}, map[string]string{"10.0.0.1": "LEADER", "10.0.0.2": "FOLLOWER"}},
		{"ks", "t", []byte{0x80, 0x00}, []byte{}, map[string]string{"::ffff:10.0.0.3": "LEADER"}},
	}}
	rows, err := scanPartitionRows(it)
	if err != nil {
		t.Fatal(err)
	}
	want := []PartitionRow{
		{Keyspace: "ks", Table: "t", StartKey: []byte{}, EndKey: []byte{0x80, 0}, Replicas: map[string]string{"10.0.0.1": "LEADER", "10.0.0.2": "FOLLOWER"}},
		{Keyspace: "ks", Table: "t", StartKey: []byte{0x80, 0}, EndKey: []byte{}, Replicas: map[string]string{"10.0.0.3": "LEADER"}},
	}
	if !reflect.DeepEqual(rows, want) {
		t.Errorf("rows = %+v\nwant   %+v", rows, want)
	}
	_, err = scanPartitionRows(&fakeIter{err: errors.New("unconfigured table partitions")})
	if err == nil {
		t.Error("an iterator error was not returned")
	}
}

func TestBuildPartitionMap(t *testing.T) {
	rows := []PartitionRow{
		{Keyspace: "ks", Table: "t", StartKey: []byte{0xaa, 0xaa}, EndKey: nil,
			Replicas: map[string]string{"10.0.0.3": "FOLLOWER", "10.0.0.1": "LEADER", "10.0.0.2": "FOLLOWER"}},
		{Keyspace: "ks", Table: "t", StartKey: nil, EndKey: []byte{0x55, 0x55},
			Replicas: map[string]string{"10.0.0.2": "FOLLOWER", "10.0.0.1": "FOLLOWER", "10.0.0.3": "LEADER", "10.0.0.9": "SOMETHING"}},
		{Keyspace: "ks", Table: "t", StartKey: []byte{0x55, 0x55}, EndKey: []byte{0xaa, 0xaa},
			Replicas: map[string]string{"10.0.0.4": "READ_REPLICA", "10.0.0.1": "FOLLOWER"}},
		{Keyspace: "other", Table: "u", StartKey: []byte{}, Replicas: map[string]string{"10.0.0.1": "LEADER"}},
	}
	m, err := BuildPartitionMap(rows)
	if err != nil {
		t.Fatal(err)
	}
	ts := m.Table("ks", "t")
	if ts == nil || len(ts.Tablets) != 3 {
		t.Fatalf("ks.t: %+v", ts)
	}
	want := []Tablet{
		{Start: 0, Replicas: []string{"10.0.0.3", "10.0.0.1", "10.0.0.2"}, HasLeader: true},
		{Start: 0x5555, Replicas: []string{"10.0.0.1", "10.0.0.4"}, HasLeader: false},
		{Start: 0xaaaa, Replicas: []string{"10.0.0.1", "10.0.0.2", "10.0.0.3"}, HasLeader: true},
	}
	if !reflect.DeepEqual(ts.Tablets, want) {
		t.Errorf("tablets = %+v\nwant      %+v", ts.Tablets, want)
	}
	for _, c := range []struct {
		h    uint16
		want uint16
	}{{0, 0}, {0x5554, 0}, {0x5555, 0x5555}, {0xaaa9, 0x5555}, {0xaaaa, 0xaaaa}, {0xffff, 0xaaaa}} {
		if got := ts.Lookup(c.h); got == nil || got.Start != c.want {
			t.Errorf("Lookup(%#x) = %+v, want the tablet starting at %#x", c.h, got, c.want)
		}
	}
	if m.Table("ks", "missing") != nil || m.Table("other", "u") == nil {
		t.Error("tables are not kept apart")
	}
	if _, err := BuildPartitionMap([]PartitionRow{{Keyspace: "k", Table: "t", StartKey: []byte{1}}}); err == nil {
		t.Error("a 1-byte boundary was accepted")
	}
}

// A table whose first tablet does not start at 0 has no tablet for the
// hashes below it (the reference's floorEntry returns null).
func TestLookupBelowTheFirstTablet(t *testing.T) {
	ts := &TableSplits{Tablets: []Tablet{{Start: 100}, {Start: 200}}}
	if ts.Lookup(99) != nil {
		t.Error("hash 99 found a tablet")
	}
	if got := ts.Lookup(150); got == nil || got.Start != 100 {
		t.Errorf("Lookup(150) = %+v", got)
	}
}
