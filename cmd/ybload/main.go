// Command ybload is ybbench's load agent. Its YCSB mode takes the YCSB
// client's command lines with `./bin/ycsb` replaced by `ybload`:
//
//	ybload load ysql -s -P db.properties -P workloads/workloada -p recordcount=1000000 -p threadcount=32
//	ybload run ysql -s -P db.properties -P workloads/workloada -p operationcount=10000000 -p threadcount=256
//
// `ybload --help`, `ybload help [command]` and `ybload <command> --help`
// print help on stdout and exit 0; errors go to stderr.
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

	"github.com/ybbench/ybbench/bench/agentutil"
	"github.com/ybbench/ybbench/bench/kv"
	"github.com/ybbench/ybbench/bench/sysbench"
	"github.com/ybbench/ybbench/bench/ycql"
	"github.com/ybbench/ybbench/bench/ycsb"
	"github.com/ybbench/ybbench/bench/ysql"
	"github.com/ybbench/ybbench/internal/buildinfo"
	"github.com/ybbench/ybbench/internal/exitcode"
)

// version is set at build time (-ldflags "-X main.version=…").
var version = "dev"

// commit is the git commit of the build (make build sets it).
var commit = ""

func main() {
	os.Exit(realMain(os.Args[1:], os.Stdout, os.Stderr))
}

func realMain(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		// No command is a usage error: the usage goes with it, to stderr.
		fmt.Fprint(stderr, usage())
		return exitcode.Config
	}
	if agentutil.IsHelpFlag(args[0]) || args[0] == "help" {
		return help(args[1:], stdout, stderr)
	}
	if args[0] == "version" || args[0] == "--version" {
		fmt.Fprintln(stdout, "ybload", buildinfo.Describe(version, commit))
		return exitcode.OK
	}
	switch args[0] {
	case "load", "run", "kv", "sysbench":
		ctx, abort := signals(stderr)
		return runCommand(ctx, abort, args, stdout, stderr)
	}
	fmt.Fprintf(stderr, "ybload: unknown command %q\n", args[0])
	fmt.Fprint(stderr, usage())
	return exitcode.Config
}

// runCommand hands a command line to its mode; args[0] is the command.
func runCommand(ctx context.Context, abort <-chan struct{}, args []string, stdout, stderr io.Writer) int {
	switch args[0] {
	case "load", "run":
		return ycsb.Main(ctx, args, &ycsb.Env{Stdout: stdout, Stderr: stderr, Bindings: bindings(), Abort: abort, Version: version})
	case "kv":
		return kv.Main(ctx, args[1:], &kv.Env{Stdout: stdout, Stderr: stderr, Getenv: os.Getenv, Abort: abort, Version: version})
	}
	return sysbench.Main(ctx, args[1:], &sysbench.Env{Stdout: stdout, Stderr: stderr, Getenv: os.Getenv, Abort: abort, Version: version})
}

// help answers `ybload --help` and `ybload help [command]`: the overview,
// or the command's own help (as `ybload <command> --help` gives it), on
// stdout with exit 0. An unknown command is a usage error.
func help(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stdout, usage())
		return exitcode.OK
	}
	switch args[0] {
	case "load", "run", "kv", "sysbench":
		return runCommand(context.Background(), nil, append(args[:1:1], "--help"), stdout, stderr)
	case "version":
		fmt.Fprintln(stdout, "ybload version: prints the release, the commit and Go's version (also ybload --version)")
		return exitcode.OK
	}
	fmt.Fprintf(stderr, "ybload help: unknown command %q (load, run, kv, sysbench, version)\n", args[0])
	return exitcode.Config
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

// usage is ybload's overview: its commands and where each one's help is.
func usage() string {
	return `Usage: ybload <command> [arguments]

Commands:
  load|run <binding> [-P file]... [-p name=value]... [-threads n] [-target n] [-s] [-l label]
      YCSB's core workloads, with YCSB's command line; bindings: ysql (also jdbc,
      yugabyteSQL), ycql (also yugabyteCQL), null
  kv --workload CassandraKeyValue|CassandraBatchKeyValue --nodes host:port[,…] [--flag value]...
      yb-sample-apps' key-value workloads over YCQL, with its flags
  sysbench <oltp_workload> [--option=value]... prepare|run|cleanup
      sysbench's OLTP workloads, with its options (--compat=yb, the YugabyteDB
      fork, the default; or 1.0.20)
  version
      the release, the commit and Go's version (also --version)

ybload <command> --help (or ybload help <command>) shows a command's options.
Exit codes: 0 ok, 1 tool error, 2 bad input, 5 database or workload error.
`
}
