package ycql

import (
	"context"
	"encoding/binary"
	"fmt"
	"net"
	"slices"
	"strings"

	"github.com/gocql/gocql"
)

// PartitionsQuery reads YugabyteDB's partition map: one row per tablet,
// with its hash range and its replicas' roles. It is the reference Java
// driver's statement, text for text (ControlConnection.SELECT_PARTITIONS in
// cassandra-driver-core 3.10.3-yb-2).
const PartitionsQuery = "SELECT keyspace_name, table_name, start_key, end_key, replica_addresses FROM system.partitions"

// Replica roles in system.partitions.replica_addresses.
const (
	RoleLeader      = "LEADER"
	RoleFollower    = "FOLLOWER"
	RoleReadReplica = "READ_REPLICA"
)

// TableName is a keyspace-qualified table name.
type TableName struct{ Keyspace, Table string }

// String is keyspace.table.
func (t TableName) String() string { return t.Keyspace + "." + t.Table }

// PartitionRow is one row of system.partitions.
type PartitionRow struct {
	Keyspace, Table  string
	StartKey, EndKey []byte
	// Replicas maps each replica's address to its role (LEADER, FOLLOWER,
	// READ_REPLICA).
	Replicas map[string]string
}

// Tablet is one partition of a table: the hashes it holds and its replicas,
// the leader first.
type Tablet struct {
	// Start is the first partition hash of the tablet (inclusive).
	Start uint16
	// Replicas are the replicas' addresses: the leader first when it is
	// known, then followers and read replicas (sorted, for determinism).
	Replicas []string
	// HasLeader is false when no replica was reported as leader.
	HasLeader bool
}

// TableSplits are a table's tablets, by ascending start.
type TableSplits struct{ Tablets []Tablet }

// Lookup returns the tablet holding partition hash h: the one with the
// greatest start not above h (the reference's floorEntry), nil if none.
func (t *TableSplits) Lookup(h uint16) *Tablet {
	i, found := slices.BinarySearchFunc(t.Tablets, h, func(x Tablet, h uint16) int { return int(x.Start) - int(h) })
	if found {
		return &t.Tablets[i]
	}
	if i == 0 {
		return nil
	}
	return &t.Tablets[i-1]
}

// PartitionMap is YugabyteDB's partition map as read at one instant.
type PartitionMap struct {
	Tables map[TableName]*TableSplits
}

// Table returns a table's splits, nil when the map has none.
func (m *PartitionMap) Table(keyspace, table string) *TableSplits {
	if m == nil {
		return nil
	}
	return m.Tables[TableName{keyspace, table}]
}

// partitionKeyStart decodes a tablet boundary as the reference driver does:
// empty is 0, else the first two bytes as an unsigned big-endian number.
func partitionKeyStart(b []byte) (uint16, error) {
	switch {
	case len(b) == 0:
		return 0, nil
	case len(b) == 1:
		return 0, fmt.Errorf("partition key boundary of 1 byte (%x)", b)
	}
	return binary.BigEndian.Uint16(b), nil
}

// BuildPartitionMap turns system.partitions rows into a partition map. A
// row whose boundary cannot be decoded is an error; replicas of an unknown
// role are left out, as the reference does.
func BuildPartitionMap(rows []PartitionRow) (*PartitionMap, error) {
	m := &PartitionMap{Tables: map[TableName]*TableSplits{}}
	for _, r := range rows {
		start, err := partitionKeyStart(r.StartKey)
		if err != nil {
			return nil, fmt.Errorf("system.partitions row of %s.%s: %w", r.Keyspace, r.Table, err)
		}
		tab := Tablet{Start: start}
		var others []string
		for addr, role := range r.Replicas {
			switch role {
			case RoleLeader:
				tab.Replicas = append(tab.Replicas, addr)
			case RoleFollower, RoleReadReplica:
				others = append(others, addr)
			}
		}
		slices.Sort(tab.Replicas) // more than one leader is not expected; keep it deterministic
		tab.HasLeader = len(tab.Replicas) > 0
		slices.Sort(others)
		tab.Replicas = append(tab.Replicas, others...)
		name := TableName{r.Keyspace, r.Table}
		ts := m.Tables[name]
		if ts == nil {
			ts = &TableSplits{}
			m.Tables[name] = ts
		}
		ts.Tablets = append(ts.Tablets, tab)
	}
	for _, ts := range m.Tables {
		// A later row with the same start replaces an earlier one, as in the
		// reference's map.
		slices.SortStableFunc(ts.Tablets, func(a, b Tablet) int { return int(a.Start) - int(b.Start) })
		out := ts.Tablets[:0]
		for i, t := range ts.Tablets {
			if i+1 < len(ts.Tablets) && ts.Tablets[i+1].Start == t.Start {
				continue
			}
			out = append(out, t)
		}
		ts.Tablets = out
	}
	return m, nil
}

// ReadPartitionMap reads system.partitions through s (at consistency ONE,
// as the reference reads system tables) and builds the partition map.
func ReadPartitionMap(ctx context.Context, s *gocql.Session) (*PartitionMap, error) {
	rows, err := readPartitionRows(ctx, s)
	if err != nil {
		return nil, err
	}
	return BuildPartitionMap(rows)
}

func readPartitionRows(ctx context.Context, s *gocql.Session) ([]PartitionRow, error) {
	return scanPartitionRows(s.Query(PartitionsQuery).WithContext(ctx).Consistency(gocql.One).Idempotent(true).Iter())
}

// rowIter is the part of *gocql.Iter the reader uses.
type rowIter interface {
	Scan(dest ...interface{}) bool
	Close() error
}

// scanPartitionRows reads PartitionsQuery's columns, in its order.
func scanPartitionRows(iter rowIter) ([]PartitionRow, error) {
	var rows []PartitionRow
	for {
		var r PartitionRow
		var replicas map[string]string
		if !iter.Scan(&r.Keyspace, &r.Table, &r.StartKey, &r.EndKey, &replicas) {
			break
		}
		r.Replicas = normalizeAddrs(replicas)
		rows = append(rows, r)
	}
	if err := iter.Close(); err != nil {
		return nil, fmt.Errorf("read %s: %w", strings.TrimPrefix(PartitionsQuery, "SELECT "), err)
	}
	return rows, nil
}

// normalizeAddrs writes every address in Go's canonical form, as host
// addresses are compared in it.
func normalizeAddrs(m map[string]string) map[string]string {
	out := make(map[string]string, len(m))
	for a, role := range m {
		if ip := net.ParseIP(a); ip != nil {
			a = ip.String()
		}
		out[a] = role
	}
	return out
}
