package ycsb

// Usage is the help of ybload's YCSB mode (`ybload load|run --help`): the
// command line of YCSB's bin/ycsb with ./bin/ycsb replaced by ybload, the
// bindings, the options, and where ybload's own properties are described.
// It is text for a reader, not a format other tools parse.
func Usage() string {
	return `Usage: ybload load|run <binding> [options]
  YCSB's command line, with ./bin/ycsb replaced by ybload.

Commands:
  load           the load phase: insert the records (YCSB's -load)
  run            the transaction phase: run the workload's operations (YCSB's -t)

Bindings:
  ysql           PostgreSQL wire protocol (YSQL) through pgx; also jdbc, yugabyteSQL,
                 site.ycsb.db.JdbcDBClient
  ycql           CQL (YCQL) through gocql; also yugabyteCQL,
                 site.ycsb.db.CassandraCQLClient
  null           no database: every value is made and every operation measured,
                 to measure the agent itself

Options:
  -P file        read a property file (workload or connection); later files win;
                 workloads/workloada … workloadf fall back to the built-in copies
  -p name=value  set a property; beats every -P, wherever it stands
  -threads n     client threads (the property threadcount; default 1)
  -target n      target operations per second over all threads (default: no limit)
  -s             a status line on standard error every 10 s (status.interval)
  -l label       the status line's label
  -db class      the binding, by its YCSB class name
  -load, -t      the load or the transaction phase, as YCSB's client takes them
  -h, --help     this help

Properties: YCSB's core properties (recordcount, operationcount, threadcount,
maxexecutiontime, requestdistribution, …), the binding's connection properties
(db.url, db.user, db.passwd; hosts, port, cassandra.*), and ybload's own
(ybload.summary=file.json, ybload.records=file.jsonl, ybload.seed,
ybload.start.at, ybload.metrics.addr=HOST:PORT (live metrics for Prometheus,
off by default), warmuptime, ysql.*, ycql.*): see docs/agent.md.

The final report goes to standard output in YCSB's format; progress and
errors to standard error.
Exit codes: 0 ok, 1 tool error, 2 bad input, 5 database or workload error.
`
}
