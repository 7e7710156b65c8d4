package kv

import (
	"context"
	"fmt"
	"strings"

	"github.com/gocql/gocql"

	"github.com/ybbench/ybbench/bench/ycql"
	"github.com/ybbench/ybbench/internal/exitcode"
)

// setUpSchema detects the server and runs the DDL through an admin session
// of its own, closed before the workload's sessions open, so that it holds
// no connection during the measurement.
func setUpSchema(ctx context.Context, o *Options, cfg *ycql.Config) (ycql.Server, []string, error) {
	admin, err := ycql.Probe(ctx, cfg)
	if err != nil {
		return ycql.Server{}, nil, exitcode.Wrap(exitcode.Workload, err)
	}
	ddl, err := prepareSchema(ctx, o, admin)
	admin.Close()
	if err != nil {
		return ycql.Server{}, nil, exitcode.Wrap(exitcode.Workload, err)
	}
	return admin.Server, ddl, nil
}

// prepareSchema runs the reference's DDL through the admin session, in its
// order: keyspace, the table dropped if asked, the table.
func prepareSchema(ctx context.Context, o *Options, a *ycql.Admin) ([]string, error) {
	var ddl []string
	exec := func(stmt string) error {
		ddl = append(ddl, stmt)
		if err := a.S.Query(stmt).WithContext(ctx).Consistency(gocql.One).Exec(); err != nil {
			return fmt.Errorf("%s: %w", strings.TrimSuffix(stmt, ";"), err)
		}
		return nil
	}
	if !o.SkipDDL {
		rf := o.ReplicationFactor
		if rf == 0 {
			rf = ycql.DefaultReplicationFactor(a.Server.Nodes)
		}
		if err := exec(KeyspaceCQL(o.Keyspace, rf)); err != nil {
			return ddl, err
		}
	}
	if o.DropTable != "" {
		if err := exec("DROP TABLE IF EXISTS " + o.Keyspace + "." + o.DropTable + ";"); err != nil {
			return ddl, err
		}
	}
	if !o.SkipDDL && !o.SkipWorkload {
		if err := exec(strings.Replace(TableCQL(o.Table, o.TableTTL), "EXISTS "+o.Table, "EXISTS "+o.Keyspace+"."+o.Table, 1)); err != nil {
			return ddl, err
		}
	}
	return ddl, nil
}

// countRows is --ybload_row_count_check's COUNT(*), read at ONE: a check
// of what the run wrote, not a measured statement.
func countRows(ctx context.Context, s *gocql.Session, table string) (int64, error) {
	var n int64
	err := s.Query("SELECT COUNT(*) FROM " + table).WithContext(ctx).Consistency(gocql.One).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("count the rows of %s: %w", table, err)
	}
	return n, nil
}
