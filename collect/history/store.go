package history

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
)

// Store keeps a history's entries.
type Store interface {
	// Add keeps an entry, whole, unless one of its run id is there
	// already: added says which. Two writers at once lose nothing.
	Add(ctx context.Context, e *Entry) (added bool, err error)
	// Entries are every entry the store holds, never a half-written one.
	Entries(ctx context.Context) ([]*Entry, error)
	// Describe names the store for messages, without credentials.
	Describe() string
	Close() error
}

// ErrNewerSchema is a store written by a later ybbench than this one.
var ErrNewerSchema = errors.New("written by a newer ybbench")

// Kinds of store, as a URL names them.
const (
	KindSQLite   = "sqlite"
	KindPostgres = "postgres"
	KindS3       = "s3"
	KindDir      = "dir"
)

// DefaultPath is the embedded store's file when no URL is given:
// $XDG_DATA_HOME/ybbench/history.db, else ~/.local/share/ybbench/history.db.
func DefaultPath() (string, error) {
	if d := os.Getenv("XDG_DATA_HOME"); filepath.IsAbs(d) {
		return filepath.Join(d, "ybbench", "history.db"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("no history store given and no home directory for the default one: %w", err)
	}
	return filepath.Join(home, ".local", "share", "ybbench", "history.db"), nil
}

// KindOf is the kind of store a URL names: postgres:// or postgresql://,
// s3://bucket/prefix, sqlite:PATH (or a path ending .db), an existing
// directory (or dir:PATH), with "" for the default embedded store. Any
// other is an error naming what is understood.
func KindOf(raw string) (kind, rest string, err error) {
	switch {
	case raw == "":
		p, err := DefaultPath()
		return KindSQLite, p, err
	case strings.HasPrefix(raw, "postgres://"), strings.HasPrefix(raw, "postgresql://"):
		return KindPostgres, raw, nil
	case strings.HasPrefix(raw, "s3://"):
		return KindS3, raw, nil
	case strings.HasPrefix(raw, "sqlite:"):
		return KindSQLite, strings.TrimPrefix(strings.TrimPrefix(raw, "sqlite:"), "//"), nil
	case strings.HasPrefix(raw, "dir:"):
		return KindDir, strings.TrimPrefix(raw, "dir:"), nil
	case strings.HasSuffix(raw, ".db"), strings.HasSuffix(raw, ".sqlite"):
		return KindSQLite, raw, nil
	}
	if info, err := os.Stat(raw); err == nil && info.IsDir() {
		return KindDir, raw, nil
	}
	return "", "", fmt.Errorf("%q: want postgres://…, s3://bucket/prefix, sqlite:PATH (or a PATH ending .db), or a directory of runs", redact(raw))
}

// Open opens (and on first use creates) the store a URL names, checking
// that it can be reached, read and written by this version: an unreachable
// server, refused credentials or a store of a newer schema are errors
// before anything is written.
func Open(ctx context.Context, raw string) (Store, error) {
	kind, rest, err := KindOf(raw)
	if err != nil {
		return nil, err
	}
	switch kind {
	case KindPostgres:
		return openPostgres(ctx, rest)
	case KindS3:
		return openS3(ctx, rest)
	case KindDir:
		return openDir(rest)
	}
	return openSQLite(ctx, rest)
}

// redact is a URL without its password, for messages.
func redact(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.User == nil {
		return raw
	}
	if _, ok := u.User.Password(); ok {
		u.User = url.UserPassword(u.User.Username(), "xxxxx")
	}
	return u.String()
}
