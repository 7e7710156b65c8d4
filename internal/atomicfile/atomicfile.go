// Package atomicfile writes files so that a crash leaves the old content
// or the new, never part of either: ledgers, keys, state and results.
package atomicfile

import (
	"encoding/json"
	"os"
)

// Write writes data to path through a temporary file beside it, created
// with perm (a leftover temporary file cannot widen it), synced, renamed
// into place, and the directory synced so that the rename survives a crash.
func Write(path string, data []byte, perm os.FileMode) error {
	f, err := Create(path, perm)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Abort()
		return err
	}
	return f.Commit()
}

// syncDir makes a rename in dir durable: until the directory is synced, a
// crash may bring back the old entry (or none).
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	if err := d.Sync(); err != nil {
		d.Close()
		return err
	}
	return d.Close()
}

// WriteJSON writes v as indented JSON with a final newline, atomically.
func WriteJSON(path string, v any, perm os.FileMode) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return Write(path, append(b, '\n'), perm)
}
