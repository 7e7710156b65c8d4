package ysql

import (
	"fmt"
	"strings"
)

// The key column of YCSB's JDBC binding (JdbcDBClient.PRIMARY_KEY).
const keyColumn = "YCSB_KEY"

// SplitPoints are the split values of seed 000's range-sharded usertable:
// user10, user14, …, user98 (23 points, 24 tablets).
func SplitPoints() []string {
	var s []string
	for i := 10; i <= 98; i += 4 {
		s = append(s, fmt.Sprintf("user%d", i))
	}
	return s
}

// CreateTableDDL returns the usertable DDL: on YugabyteDB, seed 000's
// range-sharded table split at SplitPoints (ddl "range") or run_ysql.sh's
// hash-sharded one (ddl "hash"); on PostgreSQL the plain equivalent, which
// cannot say ASC in a primary key or split a table.
func CreateTableDDL(table string, fields []string, ddl string, yugabyte, split bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "CREATE TABLE %s (", table)
	if ddl == "hash" {
		b.WriteString(keyColumn + " VARCHAR(255) PRIMARY KEY")
		for _, f := range fields {
			fmt.Fprintf(&b, ", %s TEXT", strings.ToUpper(f))
		}
		b.WriteString(")")
		return b.String()
	}
	b.WriteString(keyColumn + " TEXT")
	for _, f := range fields {
		fmt.Fprintf(&b, ", %s TEXT", strings.ToUpper(f))
	}
	if !yugabyte {
		b.WriteString(", PRIMARY KEY (" + keyColumn + "))")
		return b.String()
	}
	b.WriteString(", PRIMARY KEY (" + keyColumn + " ASC))")
	if split {
		b.WriteString(" SPLIT AT VALUES (")
		for i, s := range SplitPoints() {
			if i > 0 {
				b.WriteString(",")
			}
			fmt.Fprintf(&b, "('%s')", s)
		}
		b.WriteString(")")
	}
	return b.String()
}

// The statements of YCSB's DefaultDBFlavor, with PostgreSQL placeholders.

func readSQL(table string) string {
	return fmt.Sprintf("SELECT * FROM %s WHERE %s = $1", table, keyColumn)
}

// scanSQL follows YCSB's choice by driver name: ANSI FETCH FIRST for
// postgres (and the default here), TOP for sqlserver, else LIMIT.
func scanSQL(table, driver string) string {
	d := strings.ToLower(driver)
	switch {
	case strings.Contains(d, "sqlserver"):
		return fmt.Sprintf("SELECT TOP ($1) * FROM %s WHERE %s >= $2 ORDER BY %s", table, keyColumn, keyColumn)
	case d == "" || strings.Contains(d, "postgres") || strings.Contains(d, "oracle"):
		return fmt.Sprintf("SELECT * FROM %s WHERE %s >= $1 ORDER BY %s FETCH FIRST $2 ROWS ONLY", table, keyColumn, keyColumn)
	}
	return fmt.Sprintf("SELECT * FROM %s WHERE %s >= $1 ORDER BY %s LIMIT $2", table, keyColumn, keyColumn)
}

func updateSQL(table string, fields []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "UPDATE %s SET ", table)
	for i, f := range fields {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s=$%d", f, i+1)
	}
	fmt.Fprintf(&b, " WHERE %s = $%d", keyColumn, len(fields)+1)
	return b.String()
}

func insertSQL(table string, fields []string, rows int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "INSERT INTO %s (%s", table, keyColumn)
	for _, f := range fields {
		b.WriteString("," + f)
	}
	b.WriteString(") VALUES")
	n := 1
	for r := 0; r < rows; r++ {
		if r > 0 {
			b.WriteString(",")
		}
		b.WriteString("(")
		for i := 0; i <= len(fields); i++ {
			if i > 0 {
				b.WriteString(",")
			}
			fmt.Fprintf(&b, "$%d", n)
			n++
		}
		b.WriteString(")")
	}
	return b.String()
}

func deleteSQL(table string) string {
	return fmt.Sprintf("DELETE FROM %s WHERE %s = $1", table, keyColumn)
}
