package provision

import (
	"strings"
	"testing"

	"github.com/ybbench/ybbench/infra"
)

// Every value a flavor renders into a script comes from these fields: a
// name carrying a newline and a command (it would end a script comment),
// shell characters, a comma in a data dir, root, duplicates — each is
// refused by name; a sound host passes.
func TestCheckDBHosts(t *testing.T) {
	ok := func() infra.Host {
		return infra.Host{Name: "db-1", PrivateIP: "10.0.0.1", ServiceUser: "ybbench", Base: "/runs/r1/hosts/db-1", DataDirs: []string{"/mnt/d0"}}
	}
	if p := CheckDBHosts([]infra.Host{ok()}); len(p) != 0 {
		t.Fatalf("a sound host refused: %q", p)
	}
	for _, c := range []struct {
		name string
		edit func(*infra.Host)
		want string
	}{
		{"newline in name", func(h *infra.Host) { h.Name = "x\ntouch /tmp/pwned #" }, "name: want letters"},
		{"shell in name", func(h *infra.Host) { h.Name = "db$(id)" }, "name: want letters"},
		{"empty name", func(h *infra.Host) { h.Name = "" }, "name: want letters"},
		{"hostname as IP", func(h *infra.Host) { h.PrivateIP = "db1.internal" }, "is not an IP address"},
		{"root", func(h *infra.Host) { h.ServiceUser = "root" }, "service_user is root"},
		{"bad user", func(h *infra.Host) { h.ServiceUser = "a b" }, "not a user name"},
		{"comma in data dir", func(h *infra.Host) { h.DataDirs = []string{"/mnt/a,b"} }, `directory "/mnt/a,b": want letters`},
		{"quote in base", func(h *infra.Host) { h.Base = "/runs/it's" }, "want letters"},
		{"unclean base", func(h *infra.Host) { h.Base = "/runs/x/../../etc" }, "not clean (want /etc)"},
		{"root dir", func(h *infra.Host) { h.DataDirs = []string{"/"} }, "a system directory (/)"},
	} {
		h := ok()
		c.edit(&h)
		if p := strings.Join(CheckDBHosts([]infra.Host{h}), "\n"); !strings.Contains(p, c.want) {
			t.Errorf("%s: problems %q, want %q", c.name, p, c.want)
		}
	}
	a, b := ok(), ok()
	b.PrivateIP = "10.0.0.2"
	if p := strings.Join(CheckDBHosts([]infra.Host{a, b}), "\n"); !strings.Contains(p, "name given twice") {
		t.Errorf("duplicate names: %q", p)
	}
	b.Name = "db-2"
	b.PrivateIP = a.PrivateIP
	if p := strings.Join(CheckDBHosts([]infra.Host{a, b}), "\n"); !strings.Contains(p, `is also "db-1"'s`) {
		t.Errorf("duplicate IPs: %q", p)
	}
}
