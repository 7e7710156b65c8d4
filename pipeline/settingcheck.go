package pipeline

import (
	"fmt"
	"reflect"
	"strconv"
	"time"
)

// checkBounds reports every setting below its Min, naming where its value
// came from. A workload parameter left unset (nil) is the profile's and
// is not checked.
func (s *Spec) checkBounds() []error {
	var errs []error
	for _, st := range settings {
		if st.Min == minNone {
			continue
		}
		n, ok := numberOf(st.field(s))
		if !ok {
			continue
		}
		switch {
		case st.Min == minZero && n < 0:
			errs = append(errs, fmt.Errorf("%s: %s must not be negative", s.where(st.Name), st.show(n)))
		case st.Min == minOne && n <= 0:
			errs = append(errs, fmt.Errorf("%s: %s: want %s", s.where(st.Name), st.show(n), st.Valid))
		case st.Seconds && n%int64(time.Second) != 0:
			errs = append(errs, fmt.Errorf("%s: %s: want whole seconds (the agents take seconds)", s.where(st.Name), st.show(n)))
		}
	}
	return errs
}

// numberOf reads a numeric field (false: not numeric, or unset).
func numberOf(field any) (int64, bool) {
	switch p := field.(type) {
	case *int:
		return int64(*p), true
	case *int64:
		return *p, true
	case *time.Duration:
		return int64(*p), true
	case **int:
		if *p != nil {
			return int64(**p), true
		}
	case **int64:
		if *p != nil {
			return **p, true
		}
	case **time.Duration:
		if *p != nil {
			return int64(**p), true
		}
	}
	return 0, false
}

// show writes a numeric setting's value as it was typed (a duration as
// one).
func (st Setting) show(n int64) string {
	if st.Type == "duration" {
		return time.Duration(n).String()
	}
	return strconv.FormatInt(n, 10)
}

// where names where a setting's value came from, for a message refusing
// it: the flag, the variable, the spec file's file:line: field, or the
// preset; the setting's own name when no layer set it (its default).
func (s *Spec) where(name string) string {
	if w, ok := s.from[name]; ok {
		return w
	}
	return name
}

// setFrom records where a layer set a setting (the last layer wins, as
// its value does).
func (s *Spec) setFrom(name, where string) {
	if s.from == nil {
		s.from = map[string]string{}
	}
	s.from[name] = where
}

// given reports whether a setting was given: set by a layer (a flag, a
// variable, the spec file, a preset), or, in a spec made some other way (a
// ledger's, a test's), holding another value than the table's default.
func (s *Spec) given(name string) bool {
	if _, ok := s.from[name]; ok {
		return true
	}
	st, ok := settingByName(name)
	if !ok {
		return false
	}
	var def Spec
	if st.Default != "" {
		SetString(&def, name, st.Default) // the table's test parses every default
	}
	return !reflect.DeepEqual(reflect.ValueOf(st.field(s)).Elem().Interface(), reflect.ValueOf(st.field(&def)).Elem().Interface())
}
