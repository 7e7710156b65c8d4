package provision

import "strings"

// Redacted stands in for the secret parts of a URL.
const Redacted = "REDACTED"

// RedactURL returns s with the parts of a URL that may carry a credential
// replaced by Redacted: the userinfo (user:password@), the query string
// (signed URLs put their token there) and the fragment. The scheme, host,
// port and path are kept byte for byte, so the result still says which
// file was meant. A string without "://" (a local path) is returned as
// it is. It is what gets recorded or printed wherever a source URL
// appears; the full URL is kept only in the run's secrets.
func RedactURL(s string) string {
	scheme, rest, ok := strings.Cut(s, "://")
	if !ok {
		return s
	}
	// The authority ends at the first '/', '?' or '#' (RFC 3986 §3.2).
	end := strings.IndexAny(rest, "/?#")
	if end < 0 {
		end = len(rest)
	}
	auth, tail := rest[:end], rest[end:]
	if at := strings.LastIndexByte(auth, '@'); at >= 0 {
		auth = Redacted + auth[at:]
	}
	frag := ""
	if i := strings.IndexByte(tail, '#'); i >= 0 {
		tail, frag = tail[:i], "#"+Redacted
	}
	if i := strings.IndexByte(tail, '?'); i >= 0 {
		tail = tail[:i] + "?" + Redacted
	}
	return scheme + "://" + auth + tail + frag
}

// URLHasSecret reports whether RedactURL would change s: the URL carries
// a userinfo, a query string or a fragment.
func URLHasSecret(s string) bool { return RedactURL(s) != s }
