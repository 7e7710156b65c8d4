package postgres

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/ybbench/ybbench/infra"
)

// Quorum is synchronous_standby_names for replicas: a commit waits for a
// majority of the nodes, the primary and n/2 standbys ("" without replicas).
func Quorum(replicas []string) string {
	if len(replicas) == 0 {
		return ""
	}
	quoted := make([]string, len(replicas))
	for i, r := range replicas {
		quoted[i] = `"` + r + `"` // names like db-2 are not plain identifiers
	}
	return fmt.Sprintf("ANY %d (%s)", (len(replicas)+1)/2, strings.Join(quoted, ", "))
}

// ConfLines is the postgresql.conf of one node: the flavor's fixed settings
// and the run's overrides (the quorum is set apart, once the replicas
// stream). It is a pure function.
func ConfLines(h infra.Host, sock string, port int, replicas int, overrides map[string]string) []string {
	c := map[string]string{
		"listen_addresses":        "'" + h.PrivateIP + "'",
		"port":                    strconv.Itoa(port),
		"unix_socket_directories": "'" + sock + "'",
		// The directory is the service user's, 0700: the mode of the
		// socket itself is then no way in for anyone else.
		"unix_socket_permissions": "0700",
		"password_encryption":     "'scram-sha-256'",
		"max_connections":         "1100", // 256 threads × 2 clients × 2, with headroom
		"shared_buffers":          "'256MB'",
		"wal_level":               "replica",
		// Each replica's base backup takes two WAL senders (-X stream) and
		// its streaming one more; replicas are built at the same time.
		"max_wal_senders": strconv.Itoa(max(10, 3*replicas+2)),
		// and a temporary replication slot (pg_basebackup makes one by
		// default): beyond 8 replicas at once, the default 10 slots run
		// out ("all replication slots are in use").
		"max_replication_slots": strconv.Itoa(max(10, replicas+2)),
		// Keep the WAL a concurrent base backup still needs: several fast
		// checkpoints at once otherwise recycle segments it has not
		// streamed yet ("requested WAL segment has already been removed").
		"wal_keep_size":      "'512MB'",
		"hot_standby":        "on",
		"synchronous_commit": "on",
		"logging_collector":  "off",
	}
	for k, v := range overrides {
		c[k] = v
	}
	keys := make([]string, 0, len(c))
	for k := range c {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	lines := make([]string, len(keys))
	for i, k := range keys {
		lines[i] = k + " = " + c[k]
	}
	return lines
}
