package main

// The YCSB sections on the test PostgreSQL (-only load, run, null, memory):
// ybload's load and run phases beside go-ycsb's and the pgx floor's, the
// null binding beside go-ycsb's basic DB, and ybload's peak memory at 256
// threads.

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
)

// pgBench is what the PostgreSQL sections share: the server, and the
// YCSB properties every run of them is given alike.
type pgBench struct {
	ctx           context.Context
	env           pgEnv
	rec, thr, opc string
}

func newPGBench(ctx context.Context, env pgEnv) *pgBench {
	return &pgBench{ctx: ctx, env: env, rec: "recordcount=" + strconv.Itoa(*records),
		thr: "threadcount=" + strconv.Itoa(*threads), opc: "operationcount=" + strconv.Itoa(*ops)}
}

// dbURL is the URL of database db on the test server, for pgx.
func (b *pgBench) dbURL(db string) string {
	pg := b.env.Postgres
	return fmt.Sprintf("postgres://%s:%s@%s:%d/%s?sslmode=disable", pg.User, pg.Password, pg.Host, pg.Port, db)
}

// fresh makes database db anew, so that each tool's load starts from an
// empty database whatever an earlier run left.
func (b *pgBench) fresh(db string) error {
	c, err := pgx.Connect(b.ctx, b.dbURL(b.env.Postgres.Database))
	if err != nil {
		return err
	}
	defer c.Close(b.ctx)
	if _, err := c.Exec(b.ctx, "DROP DATABASE IF EXISTS "+db+" WITH (FORCE)"); err != nil {
		return err
	}
	_, err = c.Exec(b.ctx, "CREATE DATABASE "+db)
	return err
}

// ybProps writes ybload's property file for db, in YCSB JDBC's own
// properties, and returns its path.
func (b *pgBench) ybProps(db string) string {
	pg := b.env.Postgres
	p := filepath.Join(*workdir, db+".properties")
	os.WriteFile(p, []byte(fmt.Sprintf("db.driver=org.postgresql.Driver\ndb.url=jdbc:postgresql://%s:%d/%s;\ndb.user=%s\ndb.passwd=%s\n", pg.Host, pg.Port, db, pg.User, pg.Password)), 0o600)
	return p
}

// gyArgs are go-ycsb's pg binding properties for db.
func (b *pgBench) gyArgs(db string) []string {
	pg := b.env.Postgres
	return []string{"-p", "pg.host=" + pg.Host, "-p", "pg.port=" + strconv.Itoa(pg.Port), "-p", "pg.user=" + pg.User,
		"-p", "pg.password=" + pg.Password, "-p", "pg.db=" + db, "-p", "workload=core"}
}

// loadSection loads -records records with ybload (without batching, with
// each of its batching modes) and go-ycsb, each into a fresh database; the
// run section reads what ybload's unbatched load and go-ycsb's left.
func (b *pgBench) loadSection(out *strings.Builder) error {
	ybLoad := func(db string, extra ...string) []string {
		return append([]string{*ybload, "load", "ysql", "-P", workloadFile("workloada"), "-P", b.ybProps(db), "-p", b.rec, "-p", b.thr, "-p", "ysql.createtable=true"}, extra...)
	}
	loads := map[string][]sample{}
	for r := 0; r < *reps; r++ {
		for _, v := range []struct {
			name string
			db   string
			cmd  func(db string) []string
		}{
			{"ybload load (unbatched, YCSB default)", "ybb_ybload", func(db string) []string { return ybLoad(db) }},
			{"ybload load, db.batchsize=1000 jdbc.batchupdateapi=true (YCSB JDBC batching)", "ybb_ybload_b", func(db string) []string {
				return ybLoad(db, "-p", "db.batchsize=1000", "-p", "jdbc.batchupdateapi=true")
			}},
			{"ybload load, db.batchsize=1000 ysql.load.batch=copy (extension)", "ybb_ybload_c", func(db string) []string {
				return ybLoad(db, "-p", "db.batchsize=1000", "-p", "ysql.load.batch=copy")
			}},
			{"ybload load, db.batchsize=1000 ysql.load.batch=multirow (extension)", "ybb_ybload_m", func(db string) []string {
				return ybLoad(db, "-p", "db.batchsize=1000", "-p", "ysql.load.batch=multirow")
			}},
			{"go-ycsb load", "ybb_goycsb", func(db string) []string {
				return append([]string{*goycsb, "load", "pg", "-P", workloadFile("workloada"), "-p", b.rec, "-p", b.thr}, b.gyArgs(db)...)
			}},
		} {
			if err := b.fresh(v.db); err != nil {
				return err
			}
			s, err := measure(v.cmd(v.db), int64(*records))
			if err != nil {
				return fmt.Errorf("%s: %w", v.name, err)
			}
			loads[v.name] = append(loads[v.name], s)
		}
	}
	fmt.Fprintf(out, "## Load phase (%d records)\n\n| client | records/s (median) | spread | client CPU µs/record |\n|---|---|---|---|\n", *records)
	for _, name := range sortedKeys(loads) {
		s := loads[name]
		fmt.Fprintf(out, "| %s | %.0f | %s | %.1f |\n", name, median(s, rate), spread(s, rate), median(s, cpuPerOp))
	}
	for _, name := range sortedKeys(loads) {
		if strings.HasPrefix(name, "ybload") {
			fmt.Fprintf(out, "\n%s: %.2f× go-ycsb's load", name, median(loads[name], rate)/median(loads["go-ycsb load"], rate))
		}
	}
	fmt.Fprintln(out, "\n\n(target: with db.batchsize on, ≥ 5× go-ycsb's load)")
	fmt.Fprintln(out)
	return nil
}

// runArgs is tool's command line for workload file (read: its read
// proportion, which the pgx floor is given instead of the file).
func (b *pgBench) runArgs(tool, file, read string) []string {
	switch tool {
	case "ybload":
		return []string{*ybload, "run", "ysql", "-P", workloadFile(file), "-P", b.ybProps("ybb_ybload"), "-p", b.rec, "-p", b.opc, "-p", b.thr}
	case "go-ycsb":
		return append([]string{*goycsb, "run", "pg", "-P", workloadFile(file), "-p", b.rec, "-p", b.opc, "-p", b.thr}, b.gyArgs("ybb_goycsb")...)
	}
	return []string{*floor, "-url", b.dbURL("ybb_ybload"), "-threads", strconv.Itoa(*threads), "-ops", strconv.Itoa(*ops), "-records", strconv.Itoa(*records), "-read", read}
}

// runSection runs workloads C and A with ybload, go-ycsb and the pgx floor
// on the tables the load section left, and judges ybload against both.
func (b *pgBench) runSection(out *strings.Builder) error {
	runs := map[string][]sample{}
	for r := 0; r < *reps; r++ {
		for _, w := range []struct{ file, read string }{{"workloadc", "1.0"}, {"workloada", "0.5"}} {
			for _, tool := range []string{"ybload", "go-ycsb", "pgx floor"} {
				s, err := measure(b.runArgs(tool, w.file, w.read), int64(*ops))
				if err != nil {
					return fmt.Errorf("%s %s: %w", tool, w.file, err)
				}
				key := w.file + " | " + tool
				runs[key] = append(runs[key], s)
				fmt.Fprintf(os.Stderr, "%s rep %d: %.0f ops/s, %.1f µs CPU/op\n", key, r+1, rate(s), cpuPerOp(s))
			}
		}
	}
	fmt.Fprintf(out, "## Run phase (%d operations, %d threads)\n\n", *ops, *threads)
	writeRunTable(out, runs)
	for _, w := range []string{"workloada", "workloadc"} {
		y, g, f := runs[w+" | ybload"], runs[w+" | go-ycsb"], runs[w+" | pgx floor"]
		fmt.Fprintf(out, "\n%s: ybload CPU/op = %.2f× go-ycsb's (target ≤ 0.7), %.2f× the pgx floor's (target ≤ 1.2); throughput %.2f× go-ycsb's (target ≥ 1.1)\n",
			w, median(y, cpuPerOp)/median(g, cpuPerOp), median(y, cpuPerOp)/median(f, cpuPerOp), median(y, rate)/median(g, rate))
		// Issue 15's goals against the floor, judged as the sysbench
		// section judges its goals.
		fmt.Fprintf(out, "%s against the pgx floor (issue 15): CPU/op %.2f× (goal ≤ 1.1: %s), throughput %.2f× (goal ≥ 1.0: %s)\n",
			w, median(y, cpuPerOp)/median(f, cpuPerOp), goal(y, f, cpuPerOp, 1.1, false),
			median(y, rate)/median(f, rate), goal(y, f, rate, 1.0, true))
	}
	fmt.Fprintln(out)
	return nil
}

// nullSection runs workload A with no database: ybload's null binding
// beside go-ycsb's basic DB, the frameworks' own cost.
func (b *pgBench) nullSection(out *strings.Builder) error {
	nulls := map[string][]sample{}
	nop := "operationcount=" + strconv.Itoa(*nullOps)
	for r := 0; r < *reps; r++ {
		for _, v := range []struct {
			name string
			args []string
		}{
			{"ybload null binding", []string{*ybload, "run", "null", "-P", workloadFile("workloada"), "-p", b.rec, "-p", nop, "-p", b.thr}},
			{"go-ycsb basic db", []string{*goycsb, "run", "basic", "-P", workloadFile("workloada"), "-p", b.rec, "-p", nop, "-p", b.thr, "-p", "workload=core"}},
		} {
			s, err := measure(v.args, int64(*nullOps))
			if err != nil {
				return fmt.Errorf("%s: %w", v.name, err)
			}
			nulls[v.name] = append(nulls[v.name], s)
		}
	}
	fmt.Fprintf(out, "## No database: workload A, %d threads, %d operations\n\n| client | ops/s (median) | spread | CPU µs/op |\n|---|---|---|---|\n", *threads, *nullOps)
	for _, k := range sortedKeys(nulls) {
		s := nulls[k]
		fmt.Fprintf(out, "| %s | %.0f | %s | %.3f |\n", k, median(s, rate), spread(s, rate), median(s, cpuPerOp))
	}
	fmt.Fprintf(out, "\nybload null / go-ycsb basic: %.2f× (target ≥ 3)\n\n", median(nulls["ybload null binding"], rate)/median(nulls["go-ycsb basic db"], rate))
	return nil
}

// memorySection takes ybload's peak resident memory in one workload A run
// at 256 threads, on the table the load section left.
func (b *pgBench) memorySection(out *strings.Builder) error {
	s, err := measure([]string{*ybload, "run", "ysql", "-P", workloadFile("workloada"), "-P", b.ybProps("ybb_ybload"), "-p", b.rec, "-p", b.opc, "-p", "threadcount=256", "-s"}, int64(*ops))
	if err != nil {
		return fmt.Errorf("memory run: %w", err)
	}
	fmt.Fprintf(out, "## Agent memory\n\nybload workload A, 256 threads, %d operations against PostgreSQL: max RSS %.1f MB (target ≤ 256 MB), %.0f ops/s\n", *ops, float64(s.maxRSS)/1024, rate(s))
	return nil
}
