package postgres

import (
	"fmt"
	"net/netip"

	"github.com/ybbench/ybbench/infra"
	"github.com/ybbench/ybbench/internal/exitcode"
)

// HBA is the primary's pg_hba.conf: the flavor's own scripts as postgres
// over the Unix socket (peer, mapped from the service user only, see
// pg_ident.conf), replication from the db hosts and the bench database
// (and the maintenance database postgres) from the cluster's db and client
// hosts, each by its own address, with
// SCRAM passwords; with noAuth the seeds' open setup (trust) for the same
// addresses. Nothing for any other address. It is a pure function.
func HBA(c *infra.Cluster, database, user string, noAuth bool) ([]string, error) {
	method := "scram-sha-256"
	if noAuth {
		method = "trust"
	}
	lines := []string{"local all postgres peer map=ybbench"}
	// The agents look their database up in the maintenance database
	// (postgres) before using it (ysql.createdatabase): the bench role may
	// connect there too, where it can read the catalogs and change nothing.
	dbs := database
	if database != "postgres" {
		dbs += ",postgres"
	}
	var repl, bench []string
	seen := map[string]bool{}
	for i := range c.Hosts {
		h := &c.Hosts[i]
		isDB, isClient := h.Has(infra.RoleDB), h.Has(infra.RoleClient)
		if !isDB && !isClient {
			continue
		}
		a, err := netip.ParseAddr(h.PrivateIP)
		if err != nil {
			return nil, exitcode.Errorf(exitcode.Config, "postgres: host %q: private IP %q is not an IP address", h.Name, h.PrivateIP)
		}
		cidr := netip.PrefixFrom(a, a.BitLen()).String()
		if isDB {
			repl = append(repl, fmt.Sprintf("host replication repl %s %s", cidr, method))
		}
		if !seen[cidr] {
			seen[cidr] = true
			bench = append(bench, fmt.Sprintf("host %s %s %s %s", dbs, user, cidr, method))
		}
	}
	return append(append(lines, repl...), bench...), nil
}
