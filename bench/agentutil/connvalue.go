package agentutil

import "strings"

// ConnValue quotes a value for a libpq keyword/value connection string
// (host=… dbname=…): as it is when it needs nothing, else in single quotes
// with backslashes and single quotes escaped, as libpq reads them. Both
// PostgreSQL-protocol engines (ysql, sysbench) build their connection
// strings with it.
func ConnValue(s string) string {
	if s == "" || strings.ContainsAny(s, " '\\") {
		return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s) + "'"
	}
	return s
}
