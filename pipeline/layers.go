package pipeline

import (
	"errors"
	"fmt"
	"slices"
)

// CommandLine is the command line's part of a spec: a spec file, the
// environment, the presets asked for and the flags given by name (setting →
// text).
type CommandLine struct {
	File   string
	Getenv func(string) string
	// Environ is the whole environment (os.Environ), when every YBBENCH_*
	// variable in it is to be known (nil: not checked).
	Environ []string
	Presets []string
	Flags   map[string]string
}

// Load layers defaults < spec file < YBBENCH_* < presets < flags and
// reports every problem of every layer at once (not yet the checks that
// need several settings: Resolve does those).
func Load(cl CommandLine) (Spec, error) {
	s := Defaults()
	var errs []error
	if cl.File != "" {
		if err := LoadFile(&s, cl.File); err != nil {
			errs = append(errs, err)
		}
	}
	if cl.Getenv != nil {
		if err := LoadEnv(&s, cl.Getenv); err != nil {
			errs = append(errs, err)
		}
	}
	errs = append(errs, unknownVariables(cl.Environ)...)
	for _, st := range settings {
		v, ok := cl.Flags[st.Name]
		if !ok {
			continue
		}
		if err := SetString(&s, st.Name, v); err != nil {
			errs = append(errs, fmt.Errorf("--%s: %w", FlagName(st.Name), err))
		}
		s.setFrom(st.Name, "--"+FlagName(st.Name))
	}
	// Presets go in after the flags so that a condition sees the profile
	// the flags chose, and skip what a flag set, so a flag still wins.
	presetProvider := false
	for _, a := range presetValues(cl, &s) {
		if err := SetString(&s, a.v.Setting, a.v.Value); err != nil {
			errs = append(errs, fmt.Errorf("--%s: %w", a.preset, err))
		}
		s.setFrom(a.v.Setting, fmt.Sprintf("--%s (%s=%s)", a.preset, a.v.Setting, a.v.Value))
		presetProvider = presetProvider || a.v.Setting == "provider"
	}
	for _, n := range cl.Presets {
		found := false
		for _, p := range presets {
			found = found || p.Name == n
		}
		if !found {
			errs = append(errs, fmt.Errorf("unknown preset %q", n))
		}
	}
	_, inv := cl.Flags[inventorySetting]
	_, prov := cl.Flags["provider"]
	inferProvider(&s, inv, prov || presetProvider)
	return s, errors.Join(errs...)
}

// LoadEnv lays YBBENCH_* variables over s.
func LoadEnv(s *Spec, getenv func(string) string) error {
	var errs []error
	for _, f := range settingNames() {
		if v := getenv(EnvName(f)); v != "" {
			if err := SetString(s, f, v); err != nil {
				errs = append(errs, fmt.Errorf("%s: %w", EnvName(f), err))
			}
			s.setFrom(f, EnvName(f))
		}
	}
	inferProvider(s, getenv(EnvName(inventorySetting)) != "", getenv(EnvName("provider")) != "")
	return errors.Join(errs...)
}

// presetValue is a value a preset the command line asked for sets.
type presetValue struct {
	preset string
	v      PresetValue
}

// presetValues are the values the asked presets set on s: each preset's
// values but those a flag sets by name (a flag wins) and those whose
// condition s does not meet. Load applies them, Origins names them.
func presetValues(cl CommandLine, s *Spec) []presetValue {
	var out []presetValue
	for _, p := range presets {
		if !slices.Contains(cl.Presets, p.Name) {
			continue
		}
		for _, v := range p.Values {
			if _, flag := cl.Flags[v.Setting]; flag || (v.When != nil && !v.When(s)) {
				continue
			}
			out = append(out, presetValue{p.Name, v})
		}
	}
	return out
}
