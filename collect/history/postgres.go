package history

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // pgx as a database/sql driver, "pgx"
)

// openPostgres opens a store in PostgreSQL (or YugabyteDB's YSQL), making
// its tables on first use. A connection is made at once, so an unreachable
// server or refused credentials are known before anything runs.
func openPostgres(ctx context.Context, raw string) (Store, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("history store %s: %v", redact(raw), err)
	}
	q := u.Query()
	if q.Get("connect_timeout") == "" {
		q.Set("connect_timeout", "10")
		u.RawQuery = q.Encode()
	}
	db, err := sql.Open("pgx", u.String())
	if err != nil {
		return nil, fmt.Errorf("history store %s: %w", redact(raw), err)
	}
	s := &sqlStore{db: db, d: dialect{numbered: true, lock: "SELECT pg_advisory_xact_lock(7305221463891)"}, desc: "history store " + redact(raw)}
	pctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	if err := db.PingContext(pctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("%s: cannot connect: %w", s.desc, err)
	}
	if err := s.migrate(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("%s: %w", s.desc, err)
	}
	return s, nil
}
