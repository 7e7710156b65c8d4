package ycsb

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"sort"
	"strings"

	"github.com/ybbench/ybbench/bench/livemetrics"
	"github.com/ybbench/ybbench/internal/exitcode"
)

// BindingFactory builds a binding from the properties.
type BindingFactory func(p *Props, log *slog.Logger) (Binding, error)

// Env is everything outside the process that a YCSB invocation touches.
type Env struct {
	Stdout, Stderr io.Writer
	// Bindings maps binding names (ysql, jdbc, …) and YCSB class names to factories.
	Bindings map[string]BindingFactory
	// Abort, when closed, cuts off operations in flight (second Ctrl-C).
	Abort <-chan struct{}
	// Version is ybload's version, for the records.
	Version string
	// ReadFile reads a file (property files); os.ReadFile if nil.
	ReadFile func(string) ([]byte, error)
}

// Main runs a YCSB invocation and returns the process exit code. Asked for
// help, it writes the usage on standard output and returns 0, before
// anything else is read or printed.
func Main(ctx context.Context, args []string, env *Env) int {
	err := run(ctx, args, env)
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(env.Stdout, Usage())
		return exitcode.OK
	}
	if err != nil {
		fmt.Fprintf(env.Stderr, "ybload: %v\n", err)
	}
	return exitcode.Of(err)
}

// run reads the invocation, builds and prepares its binding, and either
// stops there (ybload.prepare.only) or runs the workload. The binding is
// closed last, after everything the run opened.
func run(ctx context.Context, args []string, env *Env) error {
	log := slog.New(slog.NewTextHandler(env.Stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
	inv, err := ParseArgs(args, env.ReadFile)
	if err != nil {
		return err
	}
	announce(env.Stderr, args, inv, env.Version)
	ro, cfg, err := readSettings(env.Stderr, inv.Props)
	if err != nil {
		return err
	}
	metrics, err := serveMetrics(ctx, env.Stderr, ro)
	if err != nil {
		return err
	}
	defer metrics.Close()
	binding, err := newBinding(inv, env.Bindings, log)
	if err != nil {
		return err
	}
	if c, ok := binding.(Closer); ok {
		defer c.Close()
	}
	if pr, ok := binding.(Preparer); ok {
		if err := pr.Prepare(ctx, inv.Load); err != nil {
			return exitcode.Wrap(exitcode.Workload, err)
		}
	}
	wr := &workloadRun{env: env, inv: inv, cfg: cfg, ro: ro, binding: binding, log: log, metrics: metrics}
	if ro.prepareOnly {
		return wr.stopPrepared()
	}
	return wr.execute(ctx)
}

// serveMetrics starts the live metrics when ybload.metrics.addr asks for
// them (nil: off), before the binding connects, so that a port in use
// costs no server time; a prepare-only invocation measures nothing and
// serves nothing. The server outlives the binding: closed last, as the
// agent exits.
func serveMetrics(ctx context.Context, stderr io.Writer, ro *runOptions) (*livemetrics.Server, error) {
	if ro.metricsAddr == "" || ro.prepareOnly {
		return nil, nil
	}
	s, err := livemetrics.Serve(ctx, ro.metricsAddr)
	if err != nil {
		return nil, exitcode.Errorf(exitcode.Config, "ybload.metrics.addr=%s: %v", ro.metricsAddr, err)
	}
	fmt.Fprintf(stderr, "Serving live metrics at http://%s%s\n", s.Addr(), livemetrics.Path)
	return s, nil
}

// announce echoes the command line (secrets masked) and the version, as
// YCSB's Client does, and says which -P files were the built-in copies, so
// that a log shows what ran.
func announce(stderr io.Writer, args []string, inv *Invocation, version string) {
	fmt.Fprintf(stderr, "Command line: %s\n", maskSecrets(args))
	fmt.Fprintf(stderr, "ybload %s (YCSB-compatible client)\n", version)
	for _, f := range inv.WorkloadFiles {
		if strings.HasPrefix(f, "built-in ") {
			fmt.Fprintf(stderr, "Using the %s workload file (no such path on disk)\n", f)
		}
	}
}

// readSettings reads the client's and CoreWorkload's properties, both
// before any connection is made, so that a mistake costs no server time;
// it prints the configuration's warnings.
func readSettings(stderr io.Writer, p *Props) (*runOptions, *Config, error) {
	ro, err := readRunOptions(p)
	if err != nil {
		return nil, nil, exitcode.Wrap(exitcode.Config, err)
	}
	cfg, err := ReadConfig(p)
	if err != nil {
		return nil, nil, exitcode.Wrap(exitcode.Config, err)
	}
	for _, w := range cfg.Warnings {
		fmt.Fprintf(stderr, "Warning: %s\n", w)
	}
	return ro, cfg, nil
}

// newBinding builds the binding the command line names: YCSB's -db class
// (or a db property set anywhere) beats the binding word, as in bin/ycsb.
func newBinding(inv *Invocation, bindings map[string]BindingFactory, log *slog.Logger) (Binding, error) {
	p := inv.Props
	name := inv.Binding
	if c := p.Get("db", ""); c != "" && !p.SourceOf("db").isDefault() {
		name = c
	}
	factory, ok := bindings[name]
	if !ok {
		return nil, exitcode.Errorf(exitcode.Config, "unknown binding %q (have %s)", name, bindingNames(bindings))
	}
	binding, err := factory(p, log)
	if err != nil {
		return nil, exitcode.Wrap(exitcode.Config, err)
	}
	return binding, nil
}

// bindingNames lists the short names for an error message, leaving out
// the Java class names that alias them.
func bindingNames(m map[string]BindingFactory) string {
	var names []string
	for n := range m {
		if !strings.Contains(n, ".") {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

// maskSecrets hides the values of password-like properties on the command
// line before it is echoed.
func maskSecrets(args []string) string {
	out := make([]string, len(args))
	for i, a := range args {
		if k, _, ok := strings.Cut(a, "="); ok && isSecretKey(k) {
			a = k + "=****"
		}
		out[i] = a
	}
	return strings.Join(out, " ")
}

func isSecretKey(k string) bool {
	k = strings.ToLower(k)
	return strings.Contains(k, "passw") || strings.Contains(k, "passwd") || strings.Contains(k, "secret")
}
