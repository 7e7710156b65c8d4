package pipeline

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// SetString sets one setting from text (file values, YBBENCH_* variables,
// presets and flags all come through here, so they are parsed and checked
// the same way).
func SetString(s *Spec, name, val string) error {
	st, ok := settingByName(name)
	if !ok {
		return fmt.Errorf("unknown setting %q", name)
	}
	if len(st.Enum) > 0 {
		found := false
		for _, e := range st.Enum {
			found = found || e == val
		}
		if !found {
			return fmt.Errorf("%q: want %s", val, strings.Join(st.Enum, " or "))
		}
	}
	switch p := st.field(s).(type) {
	case *string:
		*p = val
	case *int:
		return parseInto(p, val, strconv.Atoi, "an integer")
	case **int:
		return parseOptional(p, val, strconv.Atoi, "an integer")
	case *int64:
		return parseInto(p, val, parseInt64, "an integer")
	case **int64:
		return parseOptional(p, val, parseInt64, "an integer")
	case *time.Duration:
		return parseInto(p, val, time.ParseDuration, "a duration (e.g. 30s, 2m)")
	case **time.Duration:
		return parseOptional(p, val, time.ParseDuration, "a duration (e.g. 30s, 2m)")
	case **float64:
		return parseOptional(p, val, parseNumber, "a number (e.g. 25 or 12.50)")
	case *bool:
		b, err := strconv.ParseBool(val)
		if err != nil {
			return fmt.Errorf("%q: want true or false", val)
		}
		*p = b
	case *[]string:
		*p = nil
		for _, w := range strings.Split(strings.Trim(val, "[]"), ",") {
			if w = strings.TrimSpace(w); w != "" {
				*p = append(*p, w)
			}
		}
	case *map[string]string:
		// name=value pairs separated by commas, or a YAML flow mapping {a: b}.
		m := map[string]string{}
		for _, kv := range strings.Split(strings.Trim(val, "{}"), ",") {
			kv = strings.TrimSpace(kv)
			if kv == "" {
				continue
			}
			k, v, ok := strings.Cut(kv, "=")
			if !ok {
				k, v, ok = strings.Cut(kv, ":")
			}
			if !ok {
				return fmt.Errorf("%q: want name=value pairs", kv)
			}
			m[strings.TrimSpace(k)] = strings.TrimSpace(v)
		}
		*p = m
	default:
		// A row whose field has no parser: a programming error the
		// table's test catches.
		return fmt.Errorf("setting %s: no parser for %T", name, p)
	}
	return nil
}

// parseInto parses val into *p, or says what val is not.
func parseInto[T any](p *T, val string, parse func(string) (T, error), want string) error {
	v, err := parse(val)
	if err != nil {
		return fmt.Errorf("%q is not %s", val, want)
	}
	*p = v
	return nil
}

// parseOptional sets an optional field (nil: not given) only when val
// parses: a value that does not parse leaves the field as it was, so that
// it is reported once, as not parsing, and not again as out of range.
func parseOptional[T any](p **T, val string, parse func(string) (T, error), want string) error {
	v := new(T)
	if err := parseInto(v, val, parse, want); err != nil {
		return err
	}
	*p = v
	return nil
}

func parseInt64(s string) (int64, error) { return strconv.ParseInt(s, 10, 64) }

// parseNumber reads a finite decimal number (no NaN, no infinity, no hex).
func parseNumber(s string) (float64, error) {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) || strings.ContainsAny(s, "xXpP") {
		return 0, fmt.Errorf("not a number: %q", s)
	}
	return f, nil
}
