package provision

import (
	"fmt"
	"net"
	"regexp"

	"github.com/ybbench/ybbench/infra"
)

var (
	// userName is a portable OS user name.
	userName = regexp.MustCompile(`^[a-z_][a-z0-9_-]{0,31}$`)
)

// CheckDBHosts reports, all at once, what on the db hosts a flavor cannot
// take safely: names, private IPs (an IP address each, unique), the
// service user (a user name, not root) and the directories the flavor
// writes and later removes (clean absolute paths of safe characters).
// Every flavor checks its hosts with it before it renders a script.
func CheckDBHosts(hosts []infra.Host) []string {
	var problems []string
	bad := func(h infra.Host, format string, args ...any) {
		problems = append(problems, fmt.Sprintf("db host %q: %s", h.Name, fmt.Sprintf(format, args...)))
	}
	names, ips := map[string]bool{}, map[string]string{}
	for _, h := range hosts {
		switch {
		case !infra.ValidHostName(h.Name):
			bad(h, "name: want letters, digits and ._- (at most 63, starting with a letter or digit)")
		case names[h.Name]:
			bad(h, "name given twice")
		}
		names[h.Name] = true
		if net.ParseIP(h.PrivateIP) == nil {
			bad(h, "private_ip %q is not an IP address (the servers bind IP addresses)", h.PrivateIP)
		} else if other, dup := ips[h.PrivateIP]; dup {
			bad(h, "private_ip %s is also %q's", h.PrivateIP, other)
		} else {
			ips[h.PrivateIP] = h.Name
		}
		if !userName.MatchString(h.ServiceUser) {
			bad(h, "service_user %q: not a user name (the servers run as an unprivileged user)", h.ServiceUser)
		} else if h.ServiceUser == "root" {
			bad(h, "service_user is root: the servers run as an unprivileged user")
		}
		for _, d := range append([]string{h.Base}, h.DataDirs...) {
			if msg := CheckDir(d); msg != "" {
				bad(h, "directory %q: %s", d, msg)
			}
		}
	}
	return problems
}

// CheckDir says what is wrong with a directory a flavor writes under and
// removes ("" when nothing): infra.CheckHostDir's rules (absolute, clean,
// safe characters, no system directory or tree).
func CheckDir(d string) string { return infra.CheckHostDir(d) }
