package aws

import (
	"fmt"

	"github.com/ybbench/ybbench/infra"
)

// host is one host the run asks the module for.
type host struct {
	name         string
	role         infra.Role
	instanceType string
	// dataDisks is how many data disks the host mounts (gp3 volumes or
	// the type's instance store); gp3 how many of them are gp3 volumes the
	// module makes.
	dataDisks, gp3 int
}

// hosts names a run's hosts in cluster order, db-1…db-N then
// client-1…client-M (names the module's hosts variable accepts): db hosts
// get the data disks, clients none.
func (s settings) hosts() []host {
	out := make([]host, 0, s.db+s.clients)
	for i := 1; i <= s.db; i++ {
		out = append(out, host{name: fmt.Sprintf("db-%d", i), role: infra.RoleDB, instanceType: s.dbType,
			dataDisks: s.disks.Count, gp3: s.gp3Volumes()})
	}
	for i := 1; i <= s.clients; i++ {
		out = append(out, host{name: fmt.Sprintf("client-%d", i), role: infra.RoleClient, instanceType: s.clientType})
	}
	return out
}
