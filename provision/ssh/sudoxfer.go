package ssh

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strconv"
	"strings"

	xssh "golang.org/x/crypto/ssh"

	"github.com/ybbench/ybbench/infra"
	"github.com/ybbench/ybbench/provision/internal/steplog"
)

// File transfers for a login user that is not root.
//
// SFTP runs as the login user, who cannot write the root-owned places the
// flavors upload to (a base under /opt, a data disk) nor read what root
// wrote there (ybload's 0600 records). So such transfers go through the
// same bootstrap as Run, as root through sudo: the path, mode and size
// travel in the environment block on stdin, the data right after it.
// A Put writes a temporary file beside the destination, checks that it
// received exactly the announced size (a transfer cut short by a lost
// connection or a cancel ends the input early, and is then refused, never
// renamed into place), sets the mode and renames it over the destination:
// the file is root's with the given mode, as an SFTP upload as root makes
// it, and a reader never sees half a file.

// putScript writes stdin's YBB_SIZE bytes to YBB_DST with mode YBB_MODE.
const putScript = `set -euo pipefail
dst=$YBB_DST
dir=$(dirname -- "$dst")
mkdir -p -- "$dir"
tmp=$(mktemp -- "$dir/.$(basename -- "$dst").ybbench-XXXXXXXXXXXX")
trap 'rm -f -- "$tmp"' EXIT
head -c "$YBB_SIZE" >"$tmp"
got=$(stat -c %s -- "$tmp")
if [ "$got" != "$YBB_SIZE" ]; then
  echo "ybbench: received $got of $YBB_SIZE bytes; $dst left as it was" >&2
  exit 1
fi
chmod "$YBB_MODE" -- "$tmp"
mv -f -T -- "$tmp" "$dst"
trap - EXIT
`

// getScript writes YBB_SRC to stdout.
const getScript = `exec cat -- "$YBB_SRC"`

// sudoPut is Put for a host whose login user is not root.
func (r *Runner) sudoPut(ctx context.Context, h infra.Host, dst string, src io.Reader, mode fs.FileMode) error {
	body, size, done, err := sized(src)
	if err != nil {
		return err
	}
	defer done()
	env := map[string]string{
		"YBB_DST":  dst,
		"YBB_MODE": fmt.Sprintf("%04o", mode.Perm()),
		"YBB_SIZE": strconv.FormatInt(size, 10),
	}
	return r.rootStream(ctx, h, putScript, env, body, nil)
}

// sudoGet is Get for a host whose login user is not root.
func (r *Runner) sudoGet(ctx context.Context, h infra.Host, src string, dst io.Writer) error {
	return r.rootStream(ctx, h, getScript, map[string]string{"YBB_SRC": src}, nil, dst)
}

// sized returns src with its length, which a Put announces. Readers that
// know their length (bytes and strings readers, regular files: what the
// callers pass) are read as they are; any other is first copied to a
// temporary local file, which done removes.
func sized(src io.Reader) (body io.Reader, size int64, done func(), err error) {
	done = func() {}
	switch s := src.(type) {
	case interface{ Len() int }:
		return src, int64(s.Len()), done, nil
	case *os.File:
		if st, err := s.Stat(); err == nil && st.Mode().IsRegular() {
			if off, err := s.Seek(0, io.SeekCurrent); err == nil {
				return src, st.Size() - off, done, nil
			}
		}
	}
	f, err := os.CreateTemp("", "ybbench-put-*")
	if err != nil {
		return nil, 0, done, fmt.Errorf("spool: %w", err)
	}
	done = func() { f.Close(); os.Remove(f.Name()) }
	n, err := io.Copy(f, src)
	if err == nil {
		_, err = f.Seek(0, io.SeekStart)
	}
	if err != nil {
		done()
		return nil, 0, func() {}, fmt.Errorf("spool: %w", err)
	}
	return f, n, done, nil
}

// rootStream runs a fixed script of this package as root on h (the
// bootstrap through sudo), with env and then stdin on its input and its
// output into stdout. A non-zero exit is an error here, with what the
// script said: unlike Run's callers, a transfer has no use for a Result.
// Nothing is logged per step: the data is not a command's output.
func (r *Runner) rootStream(ctx context.Context, h infra.Host, script string, env map[string]string, stdin io.Reader, stdout io.Writer) error {
	header, err := stdinHeader(env, script)
	if err != nil {
		return err
	}
	sess, _, _, err := r.session(ctx, h)
	if err != nil {
		return err
	}
	defer sess.Close()
	errTail := steplog.NewTail(4096)
	sess.Stderr = newPgidSniffer(errTail)
	if stdout != nil {
		sess.Stdout = stdout
	}
	in, err := sess.StdinPipe()
	if err != nil {
		return fmt.Errorf("stdin: %w", err)
	}
	if err := sess.Start(bootstrapCommand(true)); err != nil {
		return fmt.Errorf("start: %w", err)
	}
	go func() {
		src := io.Reader(bytes.NewReader(header))
		if stdin != nil {
			src = io.MultiReader(src, stdin)
		}
		_, _ = io.Copy(in, src)
		_ = in.Close()
	}()
	// Closing the session ends the script's input early: a Put then fails
	// its size check, a Get its copy.
	stop := context.AfterFunc(ctx, func() { sess.Close() })
	werr := sess.Wait()
	if !stop() {
		return ctx.Err()
	}
	var exitErr *xssh.ExitError
	if errors.As(werr, &exitErr) {
		return fmt.Errorf("as root through sudo: exit %d: %s", exitErr.ExitStatus(), strings.TrimSpace(string(errTail.Bytes())))
	}
	return werr
}
