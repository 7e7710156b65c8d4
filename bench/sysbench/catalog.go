package sysbench

import (
	"fmt"
	"strings"
)

// kind is a statement kind of oltp_common.lua's catalogue (spec §5.1).
type kind int

// The statement kinds, in the order a worker prepares them.
const (
	kPointSelect kind = iota
	kSimpleRange
	kSumRange
	kOrderRange
	kDistinctRange
	kIndexUpdate
	kNonIndexUpdate
	kDelete
	kInsert
	kInsertAutoinc // the fork prepares it for read_write/write_only; never executed
	kBegin
	kCommit
	numKinds
)

// Parameter types of the prepared statements (PostgreSQL type OIDs): INT is
// int8 in sysbench 1.0.20 and int4 in the fork (commit e1166ec); CHAR(n) is
// varchar in both (spec §5.1).
const (
	oidInt4    = 23
	oidInt8    = 20
	oidVarchar = 1043
)

// param is a statement parameter's sysbench type.
type param int

const (
	pInt param = iota
	pChar
)

type stmtDef struct {
	key    string // oltp_common.lua's name
	sql    string // %d is the table number
	params []param
}

// stmtDefs is the catalogue, as sent to PostgreSQL ("?" rewritten to $n).
var stmtDefs = [numKinds]stmtDef{
	kPointSelect:    {"point_selects", "SELECT c FROM sbtest%d WHERE id=$1", []param{pInt}},
	kSimpleRange:    {"simple_ranges", "SELECT c FROM sbtest%d WHERE id BETWEEN $1 AND $2", []param{pInt, pInt}},
	kSumRange:       {"sum_ranges", "SELECT SUM(k) FROM sbtest%d WHERE id BETWEEN $1 AND $2", []param{pInt, pInt}},
	kOrderRange:     {"order_ranges", "SELECT c FROM sbtest%d WHERE id BETWEEN $1 AND $2 ORDER BY c", []param{pInt, pInt}},
	kDistinctRange:  {"distinct_ranges", "SELECT DISTINCT c FROM sbtest%d WHERE id BETWEEN $1 AND $2 ORDER BY c", []param{pInt, pInt}},
	kIndexUpdate:    {"index_updates", "UPDATE sbtest%d SET k=k+1 WHERE id=$1", []param{pInt}},
	kNonIndexUpdate: {"non_index_updates", "UPDATE sbtest%d SET c=$1 WHERE id=$2", []param{pChar, pInt}},
	kDelete:         {"deletes", "DELETE FROM sbtest%d WHERE id=$1", []param{pInt}},
	kInsert:         {"inserts", "INSERT INTO sbtest%d (id, k, c, pad) VALUES ($1, $2, $3, $4)", []param{pInt, pInt, pChar, pChar}},
	kInsertAutoinc:  {"inserts_autoinc", "INSERT INTO sbtest%d (k, c, pad) VALUES ($1, $2, $3)", []param{pInt, pChar, pChar}},
	kBegin:          {"begin", "BEGIN", nil},
	kCommit:         {"commit", "COMMIT", nil},
}

// perTable reports whether a kind is prepared once per table.
func (k kind) perTable() bool { return k != kBegin && k != kCommit }

// SQL returns the statement text of kind k on table t.
func (k kind) sqlFor(t int) string {
	if !k.perTable() {
		return stmtDefs[k].sql
	}
	return fmt.Sprintf(stmtDefs[k].sql, t)
}

// oids returns the parameter type OIDs of kind k in mode m.
func (k kind) oids(m Mode) []uint32 {
	ps := stmtDefs[k].params
	if ps == nil {
		return nil
	}
	out := make([]uint32, len(ps))
	for i, p := range ps {
		switch {
		case p == pChar:
			out[i] = oidVarchar
		case m == Mode1020:
			out[i] = oidInt8
		default:
			out[i] = oidInt4
		}
	}
	return out
}

// stmtName is the server-side name of a prepared statement. (sysbench names
// them from two random numbers; the name is not part of what is measured.)
func stmtName(k kind, t int) string {
	if !k.perTable() {
		return "sb_" + stmtDefs[k].key
	}
	return fmt.Sprintf("sb_%s_%d", stmtDefs[k].key, t)
}

// kinds returns the statement kinds a workload prepares in thread_init, in
// order (spec §5.1, §6.1). oltp_insert prepares none: it sends literal SQL.
func kinds(o *Options) []kind {
	var ks []kind
	trx := func() {
		if !o.SkipTrx {
			ks = append(ks, kBegin, kCommit)
		}
	}
	reads := func(points bool) {
		if points {
			ks = append(ks, kPointSelect)
		}
		if o.RangeSelects {
			ks = append(ks, kSimpleRange, kSumRange, kOrderRange, kDistinctRange)
		}
	}
	writes := func() {
		ks = append(ks, kIndexUpdate, kNonIndexUpdate, kDelete, kInsert)
		if o.Mode == ModeFork && o.AutoInc {
			ks = append(ks, kInsertAutoinc)
		}
	}
	switch o.Workload {
	case "oltp_point_select":
		ks = append(ks, kPointSelect)
	case "oltp_read_only":
		trx()
		reads(true)
	case "oltp_read_write":
		trx()
		reads(true)
		writes()
	case "oltp_write_only":
		trx()
		writes()
	case "oltp_update_index":
		ks = append(ks, kIndexUpdate)
	case "oltp_update_non_index":
		ks = append(ks, kNonIndexUpdate)
	case "oltp_delete":
		ks = append(ks, kDelete)
	}
	return ks
}

// Statement is one server-side prepared statement of a worker's connection.
type Statement struct {
	Name string
	SQL  string
	OIDs []uint32
}

// Catalogue lists the statements each worker connection prepares for the
// workload, in the order it prepares them: per kind, every table (BEGIN and
// COMMIT once). It is empty for oltp_insert and with --db-ps-mode=disable,
// where statements are sent as literal SQL.
func Catalogue(o *Options) []Statement {
	if o.PSMode == "disable" {
		return nil
	}
	var out []Statement
	for _, k := range kinds(o) {
		if !k.perTable() {
			out = append(out, Statement{Name: stmtName(k, 0), SQL: k.sqlFor(0), OIDs: k.oids(o.Mode)})
			continue
		}
		for t := 1; t <= int(o.Tables); t++ {
			out = append(out, Statement{Name: stmtName(k, t), SQL: k.sqlFor(t), OIDs: k.oids(o.Mode)})
		}
	}
	return out
}

// literalSQL renders kind k on table t with its parameters as literals, as
// sysbench's client-side emulation does (--db-ps-mode=disable, spec §10.3):
// integers in decimal, strings in single quotes without escaping.
func literalSQL(dst []byte, tmpl string, args []arg) []byte {
	for {
		i := strings.IndexByte(tmpl, '$')
		if i < 0 {
			return append(dst, tmpl...)
		}
		dst = append(dst, tmpl[:i]...)
		j := i + 1
		n := 0
		for j < len(tmpl) && tmpl[j] >= '0' && tmpl[j] <= '9' {
			n = n*10 + int(tmpl[j]-'0')
			j++
		}
		dst = args[n-1].appendLiteral(dst)
		tmpl = tmpl[j:]
	}
}
