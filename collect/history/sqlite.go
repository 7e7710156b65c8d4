package history

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"os"
	"path/filepath"

	_ "modernc.org/sqlite" // the cgo-free SQLite driver, registered as "sqlite"
)

// openSQLite opens the embedded store: an SQLite file, made with its
// directory on first use. Writers take SQLite's write lock at the start of
// their transaction and wait for one another (busy timeout) rather than
// fail; WAL lets readers read while one writes.
func openSQLite(ctx context.Context, path string) (Store, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
		return nil, fmt.Errorf("history store %s: %w", abs, err)
	}
	q := url.Values{}
	q.Add("_pragma", "busy_timeout(30000)")
	q.Add("_pragma", "journal_mode(WAL)")
	q.Set("_txlock", "immediate")
	db, err := sql.Open("sqlite", "file:"+abs+"?"+q.Encode())
	if err != nil {
		return nil, err
	}
	s := &sqlStore{db: db, desc: "history store " + abs}
	if err := s.migrate(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("%s: %w", s.desc, err)
	}
	return s, nil
}
