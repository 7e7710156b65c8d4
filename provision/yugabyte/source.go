package yugabyte

import (
	"net/url"
	"path"
	"regexp"
	"strings"

	"github.com/ybbench/ybbench/internal/exitcode"
	"github.com/ybbench/ybbench/provision"
)

// source is where the tarball comes from.
type source struct {
	url string // downloaded on each host with curl (may hold a token)
	// shaURL is where the release server publishes the checksum (url's
	// path + ".sha", the query kept): fetched only for an https url
	// without FlavorSpec.SHA256.
	shaURL string
	local  string // or uploaded from the orchestrator
	name   string // its file name
	// sha256 is the expected digest ("" when unknown: a URL without
	// FlavorSpec.SHA256); shaFrom says where it came from.
	sha256  string
	shaFrom string
}

var (
	sha256Hex = regexp.MustCompile(`^[0-9a-f]{64}$`)
)

// planSource reads FlavorSpec.Source and SHA256: a release tarball URL or
// a local tarball, and how its digest will be known. The tarball's
// post_install.sh runs as root on every host, so a source whose digest
// nobody can vouch for is refused.
func planSource(s provision.FlavorSpec, bad *problems) source {
	if s.SHA256 != "" && !sha256Hex.MatchString(strings.ToLower(s.SHA256)) {
		bad.add("sha256 %q: not 64 hex digits", s.SHA256)
	}
	var src source
	switch {
	case s.Source == "":
		bad.add("no source: give a release tarball URL or a local tarball path")
	case strings.HasPrefix(s.Source, "http://") || strings.HasPrefix(s.Source, "https://"):
		src = urlSource(s, bad)
	case strings.Contains(s.Source, "://"):
		bad.add("source %q: only http and https URLs, or a local path", provision.RedactURL(s.Source))
	default:
		src = source{local: s.Source, name: path.Base(s.Source)}
	}
	if src.name != "" && !strings.HasSuffix(src.name, ".tar.gz") && !strings.HasSuffix(src.name, ".tgz") {
		bad.add("source %q: not a .tar.gz release tarball", provision.RedactURL(s.Source))
	}
	return src
}

// urlSource is a tarball downloaded on the hosts: its digest is the one
// given, else the .sha file the release server publishes beside it.
func urlSource(s provision.FlavorSpec, bad *problems) source {
	shown := provision.RedactURL(s.Source)
	u, err := url.Parse(s.Source)
	if err != nil || u.Host == "" || strings.ContainsFunc(s.Source, func(r rune) bool { return r <= ' ' || r == 0x7f }) {
		bad.add("source %q: not a URL", shown)
		return source{}
	}
	// Over plain http anyone on the way can swap the tarball, whose
	// post_install.sh then runs as root, and the .sha beside it:
	// only a checksum given by the user makes it safe.
	if u.Scheme == "http" && s.SHA256 == "" {
		bad.add("source %s: a tarball over plain http:// needs its sha256 (--yb-sha256); the .sha file from the same server proves nothing", shown)
		return source{}
	}
	src := source{url: s.Source, name: path.Base(u.Path)}
	if s.SHA256 != "" {
		src.sha256, src.shaFrom = strings.ToLower(s.SHA256), "FlavorSpec.SHA256"
		return src
	}
	su := *u
	su.Path += ".sha"
	su.RawPath = ""
	if u.RawPath != "" {
		su.RawPath = u.RawPath + ".sha"
	}
	src.shaURL = su.String()
	return src
}

// hashLocal computes a local tarball's digest, which the hosts check their
// copy against, and compares it with the one given (want, "" for none).
// It does nothing for a URL.
func (src *source) hashLocal(want string) error {
	if src.local == "" {
		return nil
	}
	sum, err := provision.FileSHA256(src.local)
	if err != nil {
		return exitcode.Errorf(exitcode.Config, "yugabyte: source: %v", err)
	}
	src.sha256, src.shaFrom = sum, "computed on the orchestrator"
	if want != "" {
		if want := strings.ToLower(want); want != sum {
			return exitcode.Errorf(exitcode.Config, "yugabyte: source %s: sha256 is %s, FlavorSpec.SHA256 says %s", src.local, sum, want)
		}
		src.shaFrom = "FlavorSpec.SHA256 (checked on the orchestrator)"
	}
	return nil
}
