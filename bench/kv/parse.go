package kv

import (
	"errors"
	"fmt"
	"strings"
)

// ParseArgs reads `ybload kv` flags, written as yb-sample-apps writes them
// (--name value; --name=value also works). getenv supplies
// YBLOAD_YCQL_PASSWORD. Every problem is reported at once.
func ParseArgs(args []string, getenv func(string) string) (*Options, error) {
	o := &Options{Set: map[string]string{}}
	given, errs := o.readFlags(args)
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	errs = o.landFlags(given)
	o.complete(getenv)
	errs = append(errs, o.check()...)
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	o.finish()
	return o, nil
}

// readFlags takes the flags off the command line: each one's value as
// given (the last, if given twice), by name. It fills o.Set as the records
// show the flags (secrets masked) and names the flags that change nothing.
// A line that does not read as flags is refused before any value is
// looked at: its values could be taken for the wrong flags'.
func (o *Options) readFlags(args []string) (map[string]string, []error) {
	given := map[string]string{}
	var errs []error
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !strings.HasPrefix(a, "--") || len(a) < 3 {
			errs = append(errs, fmt.Errorf("unexpected argument %q: flags are written --name value", a))
			continue
		}
		name, val, hasVal := strings.Cut(a[2:], "=")
		d, ok := flagsByName[name]
		if !ok {
			errs = append(errs, fmt.Errorf("unknown flag --%s", name))
			continue
		}
		if d.kind == kindValue && !hasVal {
			if i+1 >= len(args) {
				errs = append(errs, fmt.Errorf("flag --%s needs a value", name))
				continue
			}
			i++
			val = args[i]
		}
		if d.kind == kindBool {
			if hasVal {
				errs = append(errs, fmt.Errorf("flag --%s takes no value", name))
				continue
			}
			val = "true"
		}
		if why, bad := unsupported[name]; bad {
			errs = append(errs, fmt.Errorf("--%s: %s is not supported by ybload", name, why))
			continue
		}
		if why, ok := noEffect[name]; ok {
			o.NoEffect = append(o.NoEffect, "--"+name+": no effect ("+why+")")
		}
		given[name] = val
		o.Set[name] = val
		if d.secret {
			o.Set[name] = "****"
		}
	}
	if pw, ok := passwordWords(args); ok {
		given["password"] = pw
	}
	return given, errs
}

// passwordWords is the password as ybload kv has always read it: from the
// last "--password <value>" or "--password=<value>" words anywhere on the
// line, even where they are another flag's value (--username --password=p
// logs in as "--password=p" with password p). Kept so that every command
// line means what it meant; whether --password was given as a flag is
// still judged by o.Set.
func passwordWords(args []string) (pw string, found bool) {
	for i, a := range args {
		if a == "--password" && i+1 < len(args) {
			pw, found = args[i+1], true
		} else if v, ok := strings.CutPrefix(a, "--password="); ok {
			pw, found = v, true
		}
	}
	return pw, found
}

// landFlags puts every flag's value in o through its row's setter: first
// every default, then every flag given, in the table's order, so that a
// setter sees the flags above it already landed, and a flag given empty
// meets its default as it does in the reference. A required flag not given
// is an error.
func (o *Options) landFlags(given map[string]string) []error {
	var errs []error
	for _, d := range flagDefs {
		if d.def != "" {
			if err := d.set(o, d.name, d.def); err != nil {
				errs = append(errs, fmt.Errorf("the default of --%s: %w", d.name, err))
			}
		}
	}
	for _, d := range flagDefs {
		val, ok := given[d.name]
		switch {
		case !ok && d.required != "":
			errs = append(errs, fmt.Errorf("--%s is required: %s", d.name, d.required))
		case ok && d.set != nil:
			if err := d.set(o, d.name, val); err != nil {
				errs = append(errs, err)
			}
		}
	}
	return errs
}
