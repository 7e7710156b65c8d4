package pipeline

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/ybbench/ybbench/profiles"
	"github.com/ybbench/ybbench/provision"
)

// tarballTimeout bounds each question to a tarball's server: it says
// whether the URL answers, not how fast the download will be.
const tarballTimeout = 10 * time.Second

// checkTarball checks the YugabyteDB tarball of a run whose flavor
// installs from one, before the run is created: a path must be a
// readable .tar.gz file, of the sha256 given when one is; a URL must be
// http or https and answer a HEAD (or, where HEAD is refused, a GET of
// its first byte) with success. A URL is shown redacted in every message
// (its userinfo and query may hold a token).
func (s *Spec) checkTarball(ctx context.Context, client *http.Client) []error {
	p, _ := profiles.Get(s.Profile) // nil when unknown: the flavor is then the one asked for
	f, ok := builtin.Flavor(s.flavorFor(builtin, p))
	if !ok || !f.Traits.Tarball || s.YBTarball == "" {
		return nil
	}
	src, where := s.YBTarball, s.where("yb_tarball")
	shown := provision.RedactURL(src)
	if name := path.Base(strings.SplitN(strings.SplitN(src, "?", 2)[0], "#", 2)[0]); !strings.HasSuffix(name, ".tar.gz") && !strings.HasSuffix(name, ".tgz") {
		return []error{fmt.Errorf("%s: %s is not a .tar.gz release tarball", where, shown)}
	}
	switch {
	case strings.HasPrefix(src, "http://") || strings.HasPrefix(src, "https://"):
		if err := urlAnswers(ctx, client, src); err != nil {
			return []error{fmt.Errorf("%s: %s: %w", where, shown, err)}
		}
	case strings.Contains(src, "://"):
		return []error{fmt.Errorf("%s: %s: only http and https URLs, or a local path", where, shown)}
	default:
		sum, err := provision.FileSHA256(src)
		if err != nil {
			return []error{fmt.Errorf("%s: %w", where, err)}
		}
		if want := strings.ToLower(s.YBSHA256); want != "" && want != sum {
			return []error{fmt.Errorf("%s: %s has sha256 %s, not the %s given by %s", where, src, sum, want, s.where("yb_sha256"))}
		}
	}
	return nil
}

// urlAnswers asks u's server whether it has u: HEAD, then, when HEAD is
// refused (some servers, and URLs signed for GET alone, answer 403, 405
// or 501), a GET of the first byte. Its errors never hold u.
func urlAnswers(ctx context.Context, client *http.Client, u string) error {
	if client == nil {
		client = &http.Client{Timeout: tarballTimeout}
	}
	status, err := ask(ctx, client, http.MethodHead, u)
	if err == nil && (status == http.StatusForbidden || status == http.StatusMethodNotAllowed || status == http.StatusNotImplemented) {
		status, err = ask(ctx, client, http.MethodGet, u)
	}
	if err != nil {
		return err
	}
	if status < 200 || status > 299 {
		return fmt.Errorf("the server answers %d %s", status, http.StatusText(status))
	}
	return nil
}

// ask makes one request (a GET asks for the first byte only) and returns
// the status; the error is the transport's, without the URL.
func ask(ctx context.Context, client *http.Client, method, u string) (int, error) {
	ctx, cancel := context.WithTimeout(ctx, tarballTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, u, nil)
	if err != nil {
		return 0, errors.New("not a URL")
	}
	if method == http.MethodGet {
		req.Header.Set("Range", "bytes=0-0")
	}
	resp, err := client.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // url.Error's text holds the whole URL
		}
		return 0, fmt.Errorf("does not answer: %v", err)
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<10))
	return resp.StatusCode, nil
}

// TarballURLFile is the file in secrets/ holding a tarball URL that
// carries a token or userinfo (run.json has it redacted).
const TarballURLFile = "yb-tarball-url"

// tarball is the yugabyte source as given: the whole URL from secrets/
// when the spec (read back from run.json) holds it redacted.
func (r *Run) tarball() (string, error) {
	b, err := os.ReadFile(filepath.Join(r.dir, "secrets", TarballURLFile))
	if errors.Is(err, os.ErrNotExist) {
		return r.spec.YBTarball, nil
	}
	if err != nil {
		return "", fmt.Errorf("the tarball URL: %w", err)
	}
	return strings.TrimSpace(string(b)), nil
}
