package inventory

import (
	"strings"
	"testing"
)

// One machine (address and SSH port) in two entries is refused unless both
// say shared: true with their directories apart; the same address on
// another port, or shared entries apart, are accepted (the controls).
func TestOneMachineInTwoEntries(t *testing.T) {
	k := key(t, 0o600)
	inv := func(second string) string {
		return "defaults:\n  ssh: {key: " + k + "}\nhosts:\n" +
			"  - {name: db1, roles: [db], address: 10.0.0.1, base: /srv/a}\n" +
			"  - {name: client1, roles: [client], " + second + "}\n"
	}
	for _, c := range []struct {
		name, second, want string
		bothShared         bool
	}{
		{"same address", "address: 10.0.0.1, base: /srv/b",
			"hosts.yaml:5: hosts[1].address: 10.0.0.1 (SSH port 22) is also hosts[0]'s (db1): one machine in two entries needs shared: true on both", false},
		{"same address, one shared", "address: 10.0.0.1, base: /srv/b, shared: true", "needs shared: true on both", false},
		{"same address, the port named", "address: 10.0.0.1, base: /srv/b, ssh: {port: 22}", "is also hosts[0]'s (db1)", false},
		{"shared, base inside the other's", "address: 10.0.0.1, base: /srv/a/client, shared: true",
			"and their directories overlap: /srv/a and /srv/a/client", true},
		{"shared, a data dir the other's base", "address: 10.0.0.1, base: /srv/b, data_dirs: [/srv/a], shared: true",
			"their directories overlap: /srv/a and /srv/a", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			src := inv(c.second)
			if c.bothShared {
				src = strings.Replace(src, "base: /srv/a}", "base: /srv/a, shared: true}", 1)
			}
			_, err := Parse("hosts.yaml", []byte(src))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v\nwant %q", err, c.want)
			}
		})
	}
	for _, c := range []struct{ name, second string }{
		{"another address", "address: 10.0.0.2, base: /srv/b"},
		{"another port", "address: 10.0.0.1, base: /srv/b, ssh: {port: 2222}"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if _, err := Parse("hosts.yaml", []byte(inv(c.second))); err != nil {
				t.Error(err)
			}
		})
	}
	shared := strings.Replace(inv("address: 10.0.0.1, base: /srv/b, shared: true"), "base: /srv/a}", "base: /srv/a, shared: true}", 1)
	if hosts, err := Parse("hosts.yaml", []byte(shared)); err != nil || len(hosts) != 2 {
		t.Errorf("two shared entries apart: %v", err)
	}
}
