package ysql

import "github.com/ybbench/ybbench/bench/ycsb"

// stmtCache maps a field list to its statement text without allocating
// on a hit: a worker sees few distinct lists (one per field for updates,
// one for inserts).
type stmtCache []struct {
	names []string
	sql   string
}

func (c *stmtCache) get(vals []ycsb.Field, build func([]string) string) string {
next:
	for _, e := range *c {
		if len(e.names) != len(vals) {
			continue
		}
		for i := range vals {
			if e.names[i] != vals[i].Name {
				continue next
			}
		}
		return e.sql
	}
	names := fieldNames(vals)
	sql := build(names)
	*c = append(*c, struct {
		names []string
		sql   string
	}{names, sql})
	return sql
}

func fieldNames(vals []ycsb.Field) []string {
	n := make([]string, len(vals))
	for i, f := range vals {
		n[i] = f.Name
	}
	return n
}
