package ycql

import (
	"regexp"
	"strconv"
	"strings"
)

// The statements of YugabyteDB's YCSB binding (spec ycsb §7.2), in
// equivalent CQL text. The key column is y_id; tables are unqualified and
// resolved in the session's keyspace.

// YCSBKey is the binding's key column (CassandraCQLClient.YCSB_KEY).
const YCSBKey = "y_id"

func readCQL(table string, fields []string) string {
	return "SELECT " + columns(fields) + " FROM " + table + " WHERE " + YCSBKey + " = ? LIMIT 1"
}

func scanCQL(table string, fields []string) string {
	return "SELECT " + columns(fields) + " FROM " + table + " WHERE token(" + YCSBKey + ") >= token(?) LIMIT ?"
}

func updateCQL(table string, fields []string) string {
	var b strings.Builder
	b.WriteString("UPDATE " + table + " SET ")
	for i, f := range fields {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(f + " = ?")
	}
	b.WriteString(" WHERE " + YCSBKey + " = ?")
	return b.String()
}

func insertCQL(table string, fields []string) string {
	return "INSERT INTO " + table + " (" + YCSBKey + ", " + strings.Join(fields, ", ") + ") VALUES (?" +
		strings.Repeat(", ?", len(fields)) + ")"
}

func deleteCQL(table string) string {
	return "DELETE FROM " + table + " WHERE " + YCSBKey + " = ?"
}

func columns(fields []string) string {
	if fields == nil {
		return "*"
	}
	return strings.Join(fields, ", ")
}

// CreateKeyspaceCQL is the keyspace DDL both servers accept: Cassandra needs
// a replication map, YugabyteDB accepts and ignores it.
func CreateKeyspaceCQL(keyspace string, rf int) string {
	return "CREATE KEYSPACE IF NOT EXISTS " + keyspace +
		" WITH replication = {'class': 'SimpleStrategy', 'replication_factor': " + strconv.Itoa(rf) + "}"
}

// YCSBTableCQL is run_ycql.sh's usertable: y_id varchar primary key and
// varchar fields.
func YCSBTableCQL(keyspace, table string, fields []string) string {
	var b strings.Builder
	b.WriteString("CREATE TABLE IF NOT EXISTS " + keyspace + "." + table + " (" + YCSBKey + " varchar PRIMARY KEY")
	for _, f := range fields {
		b.WriteString(", " + f + " varchar")
	}
	b.WriteString(")")
	return b.String()
}

// DefaultReplicationFactor is the replication factor of keyspaces the agent
// creates: the cluster's node count, at most 3 (RF=1 on one node, RF=3 on
// three or more).
func DefaultReplicationFactor(nodes int) int {
	return max(1, min(3, nodes))
}

var dmlTable = regexp.MustCompile(`(?is)^\s*(?:insert\s+into|update|delete\s+(?:.*?\s+)?from|select\s+.*?\s+from)\s+((?:"[^"]+"|\w+)(?:\s*\.\s*(?:"[^"]+"|\w+))?)`)

// StatementTable returns the keyspace (empty when unqualified) and table a
// DML statement names, as the server stores them: unquoted names folded to
// lower case, quoted ones as written.
func StatementTable(stmt string) (keyspace, table string) {
	m := dmlTable.FindStringSubmatch(stmt)
	if m == nil {
		return "", ""
	}
	parts := strings.SplitN(m[1], ".", 2)
	norm := func(s string) string {
		s = strings.TrimSpace(s)
		if strings.HasPrefix(s, `"`) {
			return strings.Trim(s, `"`)
		}
		return strings.ToLower(s)
	}
	if len(parts) == 2 {
		return norm(parts[0]), norm(parts[1])
	}
	return "", norm(parts[0])
}
