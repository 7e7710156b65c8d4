package aws

import (
	"fmt"
	"path"

	"github.com/ybbench/ybbench/infra"
	"github.com/ybbench/ybbench/infra/cloudinit"
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

// dataDirSub is the directory on each data disk's mount the database
// writes under: one the run creates, rather than the mount point itself,
// which the disk script made and which a flavor must not adopt (the
// run removes only directories it created).
const dataDirSub = "ybbench"

// dataDirs are a host's data directories, one on each data disk's mount
// (cloudinit.DataDir), in disk order; none for a host without data disks.
func (h host) dataDirs() []string {
	var out []string
	for i := range h.dataDisks {
		out = append(out, path.Join(cloudinit.DataDir(i), dataDirSub))
	}
	return out
}
