package atomicfile

import (
	"bufio"
	"os"
	"path/filepath"
)

// File is a file written a piece at a time in place of another, for
// content too long to hold in memory (an interval log of a run of hours):
// the pieces go to a temporary file beside it, which Commit renames over
// it, so that a crash or Abort leaves the old file or none, never part of
// the new one, as Write does for content in one piece.
type File struct {
	f    *os.File
	w    *bufio.Writer
	path string
}

// Create starts the file at path, with perm (a leftover temporary file
// cannot widen it).
func Create(path string, perm os.FileMode) (*File, error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return nil, err
	}
	if err := f.Chmod(perm); err != nil {
		f.Close()
		os.Remove(f.Name())
		return nil, err
	}
	return &File{f: f, w: bufio.NewWriterSize(f, 64<<10), path: path}, nil
}

// Write adds p to the file's content.
func (f *File) Write(p []byte) (int, error) { return f.w.Write(p) }

// Commit puts the content in place: flushed, synced, renamed over the
// path, and the directory synced so that the rename survives a crash. On
// an error the temporary file is removed and the old file stays.
func (f *File) Commit() error {
	tmp := f.f.Name()
	defer os.Remove(tmp) // a no-op after the rename
	err := f.w.Flush()
	if err == nil {
		err = f.f.Sync()
	}
	if cerr := f.f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	if err := os.Rename(tmp, f.path); err != nil {
		return err
	}
	return syncDir(filepath.Dir(f.path))
}

// Abort drops the content: the temporary file is removed and the old file
// stays.
func (f *File) Abort() {
	f.f.Close()
	os.Remove(f.f.Name())
}
