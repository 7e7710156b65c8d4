// Package atomicfile writes files so that a crash leaves the old content
// or the new, never part of either: ledgers, keys, state and results.
package atomicfile

import (
	"encoding/json"
	"os"
	"path/filepath"
)

// Write writes data to path through a temporary file beside it, created
// with perm (a leftover temporary file cannot widen it), synced and renamed
// into place.
func Write(path string, data []byte, perm os.FileMode) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer os.Remove(tmp) // a no-op after the rename
	if err := f.Chmod(perm); err != nil {
		f.Close()
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// WriteJSON writes v as indented JSON with a final newline, atomically.
func WriteJSON(path string, v any, perm os.FileMode) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return Write(path, append(b, '\n'), perm)
}
