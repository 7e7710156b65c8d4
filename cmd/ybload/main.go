// Command ybload is ybbench's load agent. Its YCSB mode takes the YCSB
// client's command lines with `./bin/ycsb` replaced by `ybload`:
//
//	ybload load ysql -s -P db.properties -P workloads/workloada -p recordcount=1000000 -p threadcount=32
//	ybload run ysql -s -P db.properties -P workloads/workloada -p operationcount=10000000 -p threadcount=256
//
// Exit codes: 0 ok, 1 tool error, 2 bad input, 5 database or workload.
package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/ybbench/ybbench/bench/kv"
	"github.com/ybbench/ybbench/bench/sysbench"
	"github.com/ybbench/ybbench/bench/ycql"
	"github.com/ybbench/ybbench/bench/ycsb"
	"github.com/ybbench/ybbench/bench/ysql"
	"github.com/ybbench/ybbench/internal/buildinfo"
)

// version is set at build time (-ldflags "-X main.version=…").
var version = "dev"

// commit is the git commit of the build (make build sets it).
var commit = ""

func main() {
	os.Exit(realMain(os.Args[1:], os.Stdout, os.Stderr))
}

func realMain(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		usage(stderr)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	if args[0] == "version" || args[0] == "--version" {
		fmt.Fprintln(stdout, "ybload", buildinfo.Describe(version, commit))
		return 0
	}
	ctx, abort := signals(stderr)
	switch args[0] {
	case "load", "run":
		return ycsb.Main(ctx, args, &ycsb.Env{Stdout: stdout, Stderr: stderr, Bindings: bindings(), Abort: abort, Version: version})
	case "kv":
		return kv.Main(ctx, args[1:], &kv.Env{Stdout: stdout, Stderr: stderr, Getenv: os.Getenv, Abort: abort, Version: version})
	case "sysbench":
		return sysbench.Main(ctx, args[1:], &sysbench.Env{Stdout: stdout, Stderr: stderr, Getenv: os.Getenv, Abort: abort, Version: version})
	}
	fmt.Fprintf(stderr, "ybload: unknown command %q\n", args[0])
	usage(stderr)
	return 2
}

// signals turns the first SIGINT/SIGTERM into a stop (operations in flight
// finish, what was measured is written) and the second into an abort.
func signals(stderr io.Writer) (context.Context, <-chan struct{}) {
	ctx, cancel := context.WithCancel(context.Background())
	abort := make(chan struct{})
	ch := make(chan os.Signal, 2)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	go func() {
		<-ch
		fmt.Fprintln(stderr, "ybload: stopping: operations in flight finish, then the results are written (again to abort them)")
		cancel()
		<-ch
		fmt.Fprintln(stderr, "ybload: aborting operations in flight")
		close(abort)
	}()
	return ctx, abort
}

func bindings() map[string]ycsb.BindingFactory {
	ysqlFactory := func(p *ycsb.Props, log *slog.Logger) (ycsb.Binding, error) { return ysql.New(p, log, os.Getenv) }
	ycqlFactory := func(p *ycsb.Props, log *slog.Logger) (ycsb.Binding, error) { return ycql.NewYCSB(p, log, os.Getenv) }
	return map[string]ycsb.BindingFactory{
		"ysql": ysqlFactory, "jdbc": ysqlFactory, "yugabyteSQL": ysqlFactory,
		"site.ycsb.db.JdbcDBClient": ysqlFactory,
		"null":                      ycsb.NewNullBinding,
		"yugabyteCQL":               ycqlFactory, "ycql": ycqlFactory,
		"site.ycsb.db.CassandraCQLClient": ycqlFactory,
	}
}

func usage(w io.Writer) {
	fmt.Fprint(w, `usage:
  ybload load|run <binding> [-P file]... [-p name=value]... [-threads n] [-target n] [-s] [-l label]
      YCSB core workloads; bindings: ysql (also jdbc, yugabyteSQL), ycql (also yugabyteCQL), null
  ybload kv --workload CassandraKeyValue|CassandraBatchKeyValue --nodes host:port[,…] [--name value]...
      yb-sample-apps' key-value workloads over YCQL
  ybload sysbench <oltp_workload> [--name=value]... prepare|run|cleanup
      sysbench's OLTP workloads (--compat=yb, the YugabyteDB fork, or 1.0.20)
  ybload version
`)
}
