package provision

import (
	"strings"
	"testing"
)

func TestRedactURL(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"https://software.yugabyte.com/releases/2.20.1.3/yugabyte-2.20.1.3-b3-linux-x86_64.tar.gz",
			"https://software.yugabyte.com/releases/2.20.1.3/yugabyte-2.20.1.3-b3-linux-x86_64.tar.gz"},
		{"https://host/path/yb.tar.gz?token=SECRET", "https://host/path/yb.tar.gz?REDACTED"},
		{"https://host/path/yb.tar.gz?X-Amz-Signature=SECRET&X-Amz-Credential=AKIA", "https://host/path/yb.tar.gz?REDACTED"},
		{"https://user:SECRET@host:8443/yb.tar.gz", "https://REDACTED@host:8443/yb.tar.gz"},
		{"http://SECRET@host/yb.tar.gz", "http://REDACTED@host/yb.tar.gz"},
		// An '@' in the password (unescaped) still hides all of it.
		{"https://u:p@SECRET@host/a.tar.gz?t=SECRET#SECRET", "https://REDACTED@host/a.tar.gz?REDACTED#REDACTED"},
		{"https://host/a.tar.gz#SECRET", "https://host/a.tar.gz#REDACTED"},
		{"https://host?SECRET", "https://host?REDACTED"},
		// An '@' in the path is not a userinfo.
		{"https://host/releases/@latest/a.tar.gz", "https://host/releases/@latest/a.tar.gz"},
		{"/srv/tarballs/yugabyte-2.20.tar.gz", "/srv/tarballs/yugabyte-2.20.tar.gz"},
		{"relative/a?b.tar.gz", "relative/a?b.tar.gz"},
		{"", ""},
	} {
		got := RedactURL(c.in)
		if got != c.want {
			t.Errorf("RedactURL(%q) = %q, want %q", c.in, got, c.want)
		}
		if strings.Contains(got, "SECRET") {
			t.Errorf("RedactURL(%q) = %q keeps the secret", c.in, got)
		}
		if URLHasSecret(c.in) != (c.in != c.want) {
			t.Errorf("URLHasSecret(%q) = %v", c.in, URLHasSecret(c.in))
		}
	}
}
