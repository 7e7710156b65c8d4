package pipeline

import (
	"reflect"
	"slices"

	"github.com/ybbench/ybbench/profiles"
)

// ParameterSettings are the settings that override a profile parameter
// (records, operations, duration, warmup, threads, load_threads), in the
// table's order: the rows of the settings table with a param.
func ParameterSettings() []Setting {
	var out []Setting
	for _, st := range settings {
		if st.param != nil {
			out = append(out, st)
		}
	}
	return out
}

// Uses reports whether a profile's agents read the parameter a setting
// overrides (its row's Families).
func Uses(p *profiles.Profile, setting string) bool {
	st, ok := settingByName(setting)
	return ok && st.param != nil && slices.Contains(st.Families, p.Family)
}

// profileUses is a preset's condition: the spec's profile uses the
// setting (an unknown profile is left to validation to refuse).
func profileUses(setting string) func(*Spec) bool {
	return func(s *Spec) bool {
		p, err := profiles.Get(s.Profile)
		return err != nil || Uses(p, setting)
	}
}

// override is a parameter setting's value in s, when given (a nil pointer
// field is the profile's own).
func (st Setting) override(s *Spec) (reflect.Value, bool) {
	v := reflect.ValueOf(st.field(s)).Elem()
	if v.Kind() != reflect.Pointer || v.IsNil() {
		return reflect.Value{}, false
	}
	return v.Elem(), true
}

// applyOverrides puts each parameter setting given in s into params, and
// names those that changed the profile's value.
func applyOverrides(s *Spec, params *profiles.Parameters) (overridden []string) {
	for _, st := range ParameterSettings() {
		v, given := st.override(s)
		if !given {
			continue
		}
		dst := reflect.ValueOf(st.param(params)).Elem()
		if !dst.Equal(v) {
			dst.Set(v)
			overridden = append(overridden, st.Name)
		}
	}
	return overridden
}
