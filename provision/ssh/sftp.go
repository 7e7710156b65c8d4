package ssh

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"

	"github.com/pkg/sftp"

	"github.com/ybbench/ybbench/infra"
)

// Put writes src to dst on h over SFTP (as root through sudo when the login
// user is not root: sudoxfer.go): parent directories are created,
// the data goes to a temporary name beside dst, gets mode, and is renamed
// over dst, so a reader never sees half a file and an interrupted Put
// leaves the old file in place. Remote paths are slash-separated (relative
// ones are relative to the SSH user's home).
func (r *Runner) Put(ctx context.Context, h infra.Host, dst string, src io.Reader, mode fs.FileMode) error {
	wrap := func(err error) error { return classifyProvision(fmt.Errorf("ssh %s: put %s: %w", h.Name, dst, err)) }
	if escalates(h) {
		return wrapErr(wrap, r.sudoPut(ctx, h, dst, src, mode))
	}
	c, sc, err := r.sftp(ctx, h)
	if err != nil {
		return wrap(err)
	}
	err = put(ctx, sc, dst, src, mode)
	if err != nil {
		r.sftpFailed(c, sc, err)
		return wrap(err)
	}
	return nil
}

func put(ctx context.Context, sc *sftp.Client, dst string, src io.Reader, mode fs.FileMode) (err error) {
	dir := path.Dir(dst)
	if err := sc.MkdirAll(dir); err != nil {
		return fmt.Errorf("mkdir %s: %w", dir, err)
	}
	var rnd [6]byte
	_, _ = rand.Read(rnd[:])
	tmp := path.Join(dir, "."+path.Base(dst)+".ybbench-"+hex.EncodeToString(rnd[:]))
	f, err := sc.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL)
	if err != nil {
		return fmt.Errorf("create %s: %w", tmp, err)
	}
	renamed := false
	defer func() {
		if !renamed {
			_ = sc.Remove(tmp)
		}
	}()
	// Closing the file is what interrupts a transfer in flight.
	stop := context.AfterFunc(ctx, func() { f.Close() })
	_, err = io.Copy(f, src)
	cerr := f.Close()
	if !stop() {
		return ctx.Err()
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", tmp, err)
	}
	if cerr != nil {
		return fmt.Errorf("close %s: %w", tmp, cerr)
	}
	// The mode is set explicitly: the server's umask applies at creation.
	if err := sc.Chmod(tmp, mode); err != nil {
		return fmt.Errorf("chmod %s: %w", tmp, err)
	}
	if err := sc.PosixRename(tmp, dst); err != nil {
		return fmt.Errorf("rename %s to %s: %w", tmp, dst, err)
	}
	renamed = true
	return nil
}

// Get streams src on h to dst over SFTP (as root through sudo when the
// login user is not root).
func (r *Runner) Get(ctx context.Context, h infra.Host, src string, dst io.Writer) error {
	wrap := func(err error) error { return classifyProvision(fmt.Errorf("ssh %s: get %s: %w", h.Name, src, err)) }
	if escalates(h) {
		return wrapErr(wrap, r.sudoGet(ctx, h, src, dst))
	}
	c, sc, err := r.sftp(ctx, h)
	if err != nil {
		return wrap(err)
	}
	f, err := sc.Open(src)
	if err != nil {
		r.sftpFailed(c, sc, err)
		return wrap(err)
	}
	stop := context.AfterFunc(ctx, func() { f.Close() })
	_, err = io.Copy(dst, f)
	cerr := f.Close()
	if !stop() {
		return wrap(ctx.Err())
	}
	if err == nil {
		err = cerr
	}
	if err != nil {
		r.sftpFailed(c, sc, err)
		return wrap(err)
	}
	return nil
}

// sftp returns h's connection and its SFTP client.
func (r *Runner) sftp(ctx context.Context, h infra.Host) (*conn, *sftp.Client, error) {
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	c, _, err := r.connect(ctx, h)
	if err != nil {
		return nil, nil, err
	}
	sc, err := c.sftpClient()
	if err != nil {
		return nil, nil, err
	}
	return c, sc, nil
}

// sftpFailed forgets an SFTP client whose subsystem died, so the next
// transfer starts a new one; file-level errors leave it alone.
func (r *Runner) sftpFailed(c *conn, sc *sftp.Client, err error) {
	var se *sftp.StatusError
	if errors.As(err, &se) || errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrPermission) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return
	}
	c.resetSFTP(sc)
}

// wrapErr applies wrap to a non-nil error.
func wrapErr(wrap func(error) error, err error) error {
	if err == nil {
		return nil
	}
	return wrap(err)
}
