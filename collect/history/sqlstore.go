package history

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// SchemaVersion is the version of the SQL stores' tables this ybbench
// reads and writes; migrations[i] takes a store from version i to i+1.
const SchemaVersion = 1

var migrations = []string{
	// 1: one row per run, its entry whole (a single-row insert: never
	// half-written), the columns a person queries by beside it.
	`CREATE TABLE ybbench_history_runs (
		run_id     TEXT PRIMARY KEY,
		build_id   TEXT NOT NULL,
		build_time TEXT NOT NULL,
		recorded   TEXT NOT NULL,
		profile    TEXT NOT NULL,
		entry      TEXT NOT NULL
	)`,
}

// dialect is what differs between the SQL stores.
type dialect struct {
	// numbered placeholders ($1) instead of ?.
	numbered bool
	// lock serialises migrations across processes inside their
	// transaction ("" when the database's own write lock does).
	lock string
}

func (d dialect) q(query string) string {
	if !d.numbered {
		return query
	}
	var b strings.Builder
	n := 0
	for _, r := range query {
		if r == '?' {
			n++
			b.WriteString("$" + strconv.Itoa(n))
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// sqlStore is a store in an SQL database's tables.
type sqlStore struct {
	db   *sql.DB
	d    dialect
	desc string
}

func (s *sqlStore) Describe() string { return s.desc }
func (s *sqlStore) Close() error     { return s.db.Close() }

// migrate brings the tables to SchemaVersion in one transaction, or
// refuses a store a later version wrote. Two processes migrating at once
// are serialised by the dialect's lock (or the database's write lock);
// where the lock cannot be taken, the loser of a race tries once more and
// finds the tables made.
func (s *sqlStore) migrate(ctx context.Context) error {
	err := s.migrateOnce(ctx, true)
	if err != nil && !errors.Is(err, ErrNewerSchema) {
		err = s.migrateOnce(ctx, false)
	}
	return err
}

func (s *sqlStore) migrateOnce(ctx context.Context, lock bool) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if lock && s.d.lock != "" {
		if _, err := tx.ExecContext(ctx, s.d.lock); err != nil {
			return err
		}
	}
	if _, err := tx.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS ybbench_history_schema (version INTEGER PRIMARY KEY, applied TEXT NOT NULL)`); err != nil {
		return err
	}
	var v int
	if err := tx.QueryRowContext(ctx, `SELECT COALESCE(MAX(version), 0) FROM ybbench_history_schema`).Scan(&v); err != nil {
		return err
	}
	if v > SchemaVersion {
		return fmt.Errorf("%w (its tables are at version %d; this one knows %d): use a newer ybbench", ErrNewerSchema, v, SchemaVersion)
	}
	for i := v; i < SchemaVersion; i++ {
		if _, err := tx.ExecContext(ctx, migrations[i]); err != nil {
			return fmt.Errorf("migration %d: %w", i+1, err)
		}
		if _, err := tx.ExecContext(ctx, s.d.q(`INSERT INTO ybbench_history_schema (version, applied) VALUES (?, ?)`), i+1, time.Now().UTC().Format(time.RFC3339)); err != nil {
			return err
		}
	}
	return tx.Commit()
}

// Add inserts the entry's row unless its run is there.
func (s *sqlStore) Add(ctx context.Context, e *Entry) (bool, error) {
	b, err := json.Marshal(e)
	if err != nil {
		return false, err
	}
	bt := ""
	if !e.Build.Time.IsZero() {
		bt = e.Build.Time.UTC().Format(time.RFC3339Nano)
	}
	res, err := s.db.ExecContext(ctx, s.d.q(`INSERT INTO ybbench_history_runs (run_id, build_id, build_time, recorded, profile, entry)
		VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (run_id) DO NOTHING`),
		e.RunID, e.Build.ID, bt, e.Recorded.UTC().Format(time.RFC3339Nano), e.Profile, string(b))
	if err != nil {
		return false, fmt.Errorf("%s: %w", s.desc, err)
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

// Entries reads every row's entry.
func (s *sqlStore) Entries(ctx context.Context) ([]*Entry, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT run_id, entry FROM ybbench_history_runs ORDER BY recorded, run_id`)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", s.desc, err)
	}
	defer rows.Close()
	var out []*Entry
	for rows.Next() {
		var id, doc string
		if err := rows.Scan(&id, &doc); err != nil {
			return nil, err
		}
		e, err := decodeEntry([]byte(doc))
		if err != nil {
			return nil, fmt.Errorf("%s: run %s: %w", s.desc, id, err)
		}
		out = append(out, e)
	}
	return out, rows.Err()
}

// decodeEntry reads an entry document, refusing one of another schema.
func decodeEntry(b []byte) (*Entry, error) {
	var e Entry
	if err := json.Unmarshal(b, &e); err != nil {
		return nil, err
	}
	if e.Schema != Schema {
		return nil, fmt.Errorf("entry schema %q: %w (this one reads %s)", e.Schema, ErrNewerSchema, Schema)
	}
	return &e, nil
}
