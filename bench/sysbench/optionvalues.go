package sysbench

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// optKind is how an option's value is read: sysbench's option types.
type optKind int

const (
	kindInt optKind = iota
	kindBool
	kindFloat
	kindString
)

// optValue is how an option's value is read and where it lands: the row's
// kind (a bool alone means on), and land, which reads a value (the one
// given, or the mode's default) by that kind, puts it in the options and
// says what is wrong with it. A value that is wrong still lands as read
// (0 for an integer that does not parse, the value for one out of range),
// and the checks between options judge it too, as ybload's always have:
// every problem of a line is reported at once.
type optValue struct {
	kind optKind
	land func(o *Options, name, raw string) error
}

// intIn is an integer in [min, max] landed by set (nil: checked, kept
// nowhere).
func intIn(min, max int64, set func(*Options, int64)) optValue {
	return optValue{kindInt, func(o *Options, name, raw string) error {
		n, err := readInt(name, raw, min, max)
		if set != nil {
			set(o, n)
		}
		return err
	}}
}

// count is a non-negative integer.
func count(set func(*Options, int64)) optValue { return intIn(0, math.MaxInt64, set) }

// anyInt is any integer sysbench takes.
func anyInt(set func(*Options, int64)) optValue { return intIn(math.MinInt64, math.MaxInt64, set) }

// seconds is a non-negative number of seconds that fits a time.Duration.
func seconds(set func(*Options, int64)) optValue { return intIn(0, maxSeconds, set) }

// onOff is a boolean landed by set (nil: checked, kept nowhere).
func onOff(set func(*Options, bool)) optValue {
	return optValue{kindBool, func(o *Options, name, raw string) error {
		on, err := readBool(name, raw)
		if set != nil {
			set(o, on)
		}
		return err
	}}
}

// refusedWhenOn is a boolean ybload cannot honour on: off is accepted, on
// is refused with why.
func refusedWhenOn(why error) optValue {
	return optValue{kindBool, func(_ *Options, name, raw string) error {
		on, err := readBool(name, raw)
		if on {
			return why
		}
		return err
	}}
}

// number is a finite floating-point number landed by set.
func number(set func(*Options, float64)) optValue {
	return optValue{kindFloat, func(o *Options, name, raw string) error {
		x, err := readFloat(name, raw)
		set(o, x)
		return err
	}}
}

// text is a string landed as it is by set (nil: kept nowhere).
func text(set func(*Options, string)) optValue {
	return optValue{kindString, func(o *Options, _, raw string) error {
		if set != nil {
			set(o, raw)
		}
		return nil
	}}
}

// checkedText is a string whose setter may refuse it.
func checkedText(set func(*Options, string) error) optValue {
	return optValue{kindString, func(o *Options, _, raw string) error { return set(o, raw) }}
}

// readInt reads an integer in [min, max]; a value that does not parse is
// reported once, as not an integer, and not range-checked.
func readInt(name, raw string, min, max int64) (int64, error) {
	s := strings.TrimSpace(raw)
	v, err := strconv.ParseInt(s, 10, 64)
	switch {
	case err != nil:
		return 0, fmt.Errorf("--%s=%s: not an integer", dashed(name), s)
	case v < min && min == 0:
		return v, fmt.Errorf("--%s=%d: must not be negative", dashed(name), v)
	case v < min:
		return v, fmt.Errorf("--%s=%d: must be at least %d", dashed(name), v, min)
	case v > max:
		return v, fmt.Errorf("--%s=%d: must be at most %d", dashed(name), v, max)
	}
	return v, nil
}

// readFloat reads a finite number.
func readFloat(name, raw string) (float64, error) {
	s := strings.TrimSpace(raw)
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return v, fmt.Errorf("--%s=%s: not a number", dashed(name), s)
	}
	return v, nil
}

// readBool reads an on/off value as sysbench does (parseBool).
func readBool(name, raw string) (bool, error) {
	v, ok := parseBool(raw)
	if !ok {
		return v, fmt.Errorf("--%s=%s: want on or off (true/false, 1/0)", dashed(name), raw)
	}
	return v, nil
}

// parseBool reads a boolean as sysbench 1.0.20 does: on, true or 1, off,
// false or 0, in lower case; anything else (yes, ON, an empty value) is
// refused there as an invalid option.
func parseBool(s string) (v, ok bool) {
	switch strings.TrimSpace(s) {
	case "on", "true", "1":
		return true, true
	case "off", "false", "0":
		return false, true
	}
	return false, false
}
