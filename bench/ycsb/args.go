package ycsb

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"strings"

	"github.com/ybbench/ybbench/bench/agentutil"
	"github.com/ybbench/ybbench/internal/exitcode"
)

// Invocation is a parsed YCSB command line.
type Invocation struct {
	Load    bool
	Binding string
	Props   *Props
	// WorkloadFiles says, for each -P, which file was read: the path, or
	// "built-in <name>" when no such path existed.
	WorkloadFiles []string
	Args          []string
}

type listFlag struct {
	name string
	vals *[]string
}

func (l listFlag) String() string     { return "" }
func (l listFlag) Set(v string) error { *l.vals = append(*l.vals, v); return nil }

// setting is one property a command-line option sets, in the order given.
type setting struct{ key, value, flag string }

// settingFlag is an option that sets a property (-threads, -target, -l,
// -db, -s, -load, -t, and -p itself): all go into one ordered list, as
// YCSB's Client puts them into one property map in the order of the line,
// so the last one wins whichever option it came from. fixed is the value
// of an option that takes none (-s, -load, -t).
type settingFlag struct {
	key, name, fixed string
	list             *[]setting
}

func (f settingFlag) String() string   { return "" }
func (f settingFlag) IsBoolFlag() bool { return f.fixed != "" }
func (f settingFlag) Set(v string) error {
	if f.fixed != "" {
		if v != "true" { // -s=false and the like: YCSB has no such form
			return fmt.Errorf("-%s takes no value", f.name)
		}
		v = f.fixed
	}
	if f.key == "" { // -p name=value
		k, val, ok := strings.Cut(v, "=")
		if !ok {
			return fmt.Errorf("-p %s: want name=value", v)
		}
		*f.list = append(*f.list, setting{k, val, "-p " + k})
		return nil
	}
	*f.list = append(*f.list, setting{f.key, v, "-" + f.name})
	return nil
}

// ParseArgs reads `load|run <binding> [options]` with YCSB's options
// (-P file, -p name=value, -threads n, -target n, -s, -l label, -db class,
// -load, -t). Every option beats every -P, whatever the order, and the
// last option setting a property wins (-threads 2 -p threadcount=3 runs
// three threads), as in YCSB; the phase is the dotransactions property,
// which the command word sets first and -load, -t or -p may change. A
// help flag (-h, -help, --help) in the binding's place or among the
// options returns flag.ErrHelp, as YCSB's bin/ycsb answers -h anywhere.
func ParseArgs(args []string, readFile func(string) ([]byte, error)) (*Invocation, error) {
	if readFile == nil {
		readFile = os.ReadFile
	}
	bad := func(format string, a ...any) error { return exitcode.Errorf(exitcode.Config, format, a...) }
	if len(args) >= 2 && agentutil.IsHelpFlag(args[1]) {
		return nil, flag.ErrHelp
	}
	if len(args) < 2 {
		return nil, bad("usage: ybload load|run <binding> [-P file] [-p name=value] [-threads n] [-target n] [-s] [-l label] (ybload %s --help lists the options)", args[0])
	}
	inv := &Invocation{Props: NewProps(), Args: args}
	// bin/ycsb's command word puts -load or -t first on Client's line:
	// a later -t, -load or -p dotransactions=… overrides it.
	var sets []setting
	switch args[0] {
	case "load":
		sets = append(sets, setting{"dotransactions", "false", "load"})
	case "run":
		sets = append(sets, setting{"dotransactions", "true", "run"})
	default:
		return nil, bad("unknown command %q: want load or run", args[0])
	}
	inv.Binding = args[1]
	fset := flag.NewFlagSet("ybload "+args[0], flag.ContinueOnError)
	fset.SetOutput(io.Discard)
	var files []string
	fset.Var(listFlag{"P", &files}, "P", "property file")
	for _, f := range []settingFlag{{name: "p"}, {key: "threadcount", name: "threads"}, {key: "target", name: "target"},
		{key: "status", name: "s", fixed: "true"}, {key: "label", name: "l"}, {key: "db", name: "db"},
		{key: "dotransactions", name: "load", fixed: "false"}, {key: "dotransactions", name: "t", fixed: "true"}} {
		f.list = &sets
		fset.Var(f, f.name, f.key)
	}
	if err := fset.Parse(args[2:]); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil, err
		}
		return nil, bad("%v", err)
	}
	if fset.NArg() > 0 {
		return nil, bad("unexpected argument %q", fset.Arg(0))
	}
	for _, f := range files {
		data, err := readFile(f)
		used := f
		if err != nil {
			if b, ok := BuiltinWorkload(path.Base(f)); ok && errors.Is(err, fs.ErrNotExist) {
				data, used = b, "built-in "+path.Base(f)
			} else {
				return nil, bad("-P %s: %v", f, err)
			}
		}
		if err := inv.Props.LoadFile(used, data); err != nil {
			return nil, bad("%v", err)
		}
		inv.WorkloadFiles = append(inv.WorkloadFiles, used)
	}
	// Every option beats every -P file, whatever the order; among the
	// options the last one wins.
	for _, st := range sets {
		inv.Props.SetFlag(st.key, st.value, st.flag)
	}
	// YCSB's Boolean.valueOf: anything but "true" (any case) is false.
	inv.Load = !strings.EqualFold(inv.Props.Get("dotransactions", "true"), "true")
	return inv, nil
}
