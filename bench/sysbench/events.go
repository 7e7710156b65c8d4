package sysbench

import "strconv"

// runner executes statements for the event code: the worker's session, or a
// fake in tests.
type runner interface {
	exec(k kind, table int, args []arg) (class, error)
	execSQL(sql []byte) (class, error)
}

// tally counts one event's statements by class, failed attempts included
// (sysbench counts each statement as it completes, spec §7.1).
type tally struct {
	reads, writes, other int64
	errors               int64 // statements failed with an ignorable SQLSTATE
	reconnects           int64 // --reconnect reconnections
	lost                 int64 // reconnections after a lost connection
}

func (t *tally) count(c class) {
	switch c {
	case classRead:
		t.reads++
	case classWrite:
		t.writes++
	default:
		t.other++
	}
}

// script is one worker's copy of a workload's event() (spec §6.1): it draws
// tables, ids and strings, and sends the statements in sysbench's order.
type script struct {
	o      *Options
	r      runner
	rng    *rng
	dist   *dist
	unique *uniqueSeq
	t      *tally

	args   [4]arg
	c, pad []byte // new c and pad values
	sql    []byte
	event  func(*script) error
}

func newScript(o *Options, r runner, g *rng, d *dist, u *uniqueSeq, t *tally) *script {
	s := &script{o: o, r: r, rng: g, dist: d, unique: u, t: t, c: make([]byte, cLen), pad: make([]byte, padLen)}
	s.event = eventFuncs[o.Workload]
	return s
}

// eventFuncs are the eight workloads' event() functions.
var eventFuncs = map[string]func(*script) error{
	"oltp_point_select":     (*script).pointSelect,
	"oltp_read_only":        (*script).readOnly,
	"oltp_read_write":       (*script).readWrite,
	"oltp_write_only":       (*script).writeOnly,
	"oltp_insert":           (*script).insert,
	"oltp_update_index":     (*script).updateIndex,
	"oltp_update_non_index": (*script).updateNonIndex,
	"oltp_delete":           (*script).deleteOne,
}

// table is get_table_num(): uniform over 1..tables whatever --rand-type says.
func (s *script) table() int { return int(s.rng.uniform(1, s.o.Tables)) }

// id is get_id(): the default distribution over 1..table_size.
func (s *script) id() int64 { return s.dist.draw(s.rng, 1, s.o.TableSize) }

func (s *script) run(k kind, t int, args []arg) error {
	c, err := s.r.exec(k, t, args)
	if err != nil {
		return err
	}
	s.t.count(c)
	return nil
}

func (s *script) begin() error {
	if s.o.SkipTrx {
		return nil
	}
	return s.run(kBegin, 0, nil)
}

func (s *script) commit() error {
	if s.o.SkipTrx {
		return nil
	}
	return s.run(kCommit, 0, nil)
}

// pointSelects runs n point SELECTs on one table, a new id each.
func (s *script) pointSelects(n int64) error {
	t := s.table()
	for i := int64(0); i < n; i++ {
		s.args[0] = arg{i: s.id()}
		if err := s.run(kPointSelect, t, s.args[:1]); err != nil {
			return err
		}
	}
	return nil
}

// ranges runs n range statements of kind k on one table:
// BETWEEN id AND id+range_size−1.
func (s *script) ranges(k kind, n int64) error {
	t := s.table()
	for i := int64(0); i < n; i++ {
		lo := s.id()
		s.args[0], s.args[1] = arg{i: lo}, arg{i: lo + s.o.RangeSize - 1}
		if err := s.run(k, t, s.args[:2]); err != nil {
			return err
		}
	}
	return nil
}

func (s *script) reads(points int64) error {
	if err := s.pointSelects(points); err != nil {
		return err
	}
	if !s.o.RangeSelects {
		return nil
	}
	for _, r := range []struct {
		k kind
		n int64
	}{{kSimpleRange, s.o.SimpleRanges}, {kSumRange, s.o.SumRanges}, {kOrderRange, s.o.OrderRanges}, {kDistinctRange, s.o.DistinctRanges}} {
		if err := s.ranges(r.k, r.n); err != nil {
			return err
		}
	}
	return nil
}

func (s *script) indexUpdates() error {
	t := s.table()
	for i := int64(0); i < s.o.IndexUpdates; i++ {
		s.args[0] = arg{i: s.id()}
		if err := s.run(kIndexUpdate, t, s.args[:1]); err != nil {
			return err
		}
	}
	return nil
}

func (s *script) nonIndexUpdates() error {
	t := s.table()
	for i := int64(0); i < s.o.NonIndexUpdates; i++ {
		s.rng.randString(s.c)
		s.args[0], s.args[1] = arg{s: s.c}, arg{i: s.id()}
		if err := s.run(kNonIndexUpdate, t, s.args[:2]); err != nil {
			return err
		}
	}
	return nil
}

// deleteInserts deletes a row and inserts it again with the same id, a new
// k and new strings, so the table keeps its size.
func (s *script) deleteInserts() error {
	t := s.table()
	for i := int64(0); i < s.o.DeleteInserts; i++ {
		id, k := s.id(), s.id()
		s.args[0] = arg{i: id}
		if err := s.run(kDelete, t, s.args[:1]); err != nil {
			return err
		}
		s.rng.randString(s.c)
		s.rng.randString(s.pad)
		s.args[0], s.args[1], s.args[2], s.args[3] = arg{i: id}, arg{i: k}, arg{s: s.c}, arg{s: s.pad}
		if err := s.run(kInsert, t, s.args[:4]); err != nil {
			return err
		}
	}
	return nil
}

func (s *script) writes() error {
	if err := s.indexUpdates(); err != nil {
		return err
	}
	if err := s.nonIndexUpdates(); err != nil {
		return err
	}
	return s.deleteInserts()
}

// pointSelect: one point SELECT, no transaction (--point_selects is forced
// to 1 by oltp_point_select).
func (s *script) pointSelect() error { return s.pointSelects(1) }

func (s *script) readOnly() error {
	if err := s.begin(); err != nil {
		return err
	}
	if err := s.reads(s.o.PointSelects); err != nil {
		return err
	}
	return s.commit()
}

func (s *script) readWrite() error {
	if err := s.begin(); err != nil {
		return err
	}
	if err := s.reads(s.o.PointSelects); err != nil {
		return err
	}
	if err := s.writes(); err != nil {
		return err
	}
	return s.commit()
}

func (s *script) writeOnly() error {
	if err := s.begin(); err != nil {
		return err
	}
	if err := s.writes(); err != nil {
		return err
	}
	return s.commit()
}

func (s *script) updateIndex() error    { return s.indexUpdates() }
func (s *script) updateNonIndex() error { return s.nonIndexUpdates() }

func (s *script) deleteOne() error {
	t := s.table()
	s.args[0] = arg{i: s.id()}
	return s.run(kDelete, t, s.args[:1])
}

// insert is oltp_insert: one INSERT with literal values over the simple
// protocol, the id from the SERIAL (auto_inc) or from unique().
func (s *script) insert() error {
	t := s.table()
	k := s.id()
	s.rng.randString(s.c)
	s.rng.randString(s.pad)
	b := append(s.sql[:0], "INSERT INTO sbtest"...)
	b = strconv.AppendInt(b, int64(t), 10)
	if s.o.AutoInc {
		b = append(b, " (k, c, pad) VALUES ("...)
	} else {
		b = append(b, " (id, k, c, pad) VALUES ("...)
		b = strconv.AppendInt(b, s.unique.value(), 10)
		b = append(b, ", "...)
	}
	b = strconv.AppendInt(b, k, 10)
	b = append(b, ", '"...)
	b = append(b, s.c...)
	b = append(b, "', '"...)
	b = append(b, s.pad...)
	b = append(b, "')"...)
	s.sql = b
	c, err := s.r.execSQL(b)
	if err != nil {
		return err
	}
	s.t.count(c)
	return nil
}
