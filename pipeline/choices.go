package pipeline

import (
	"fmt"
	"strings"

	"github.com/ybbench/ybbench/infra"
	"github.com/ybbench/ybbench/pipeline/parts"
)

// builtin is the registry the settings are validated against and their
// choices described from: the pipeline asks it what a provider or flavor
// can do instead of knowing their names.
var builtin = parts.Builtin()

// wordList joins names as a sentence does: "a", "a or b", "a, b or c".
func wordList(names []string, conj string) string {
	switch len(names) {
	case 0:
		return ""
	case 1:
		return names[0]
	}
	return strings.Join(names[:len(names)-1], ", ") + " " + conj + " " + names[len(names)-1]
}

// providerNames lists the names of providers.
func providerNames(ps []parts.Provider) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.Name
	}
	return out
}

// providerChoices is the provider setting's type: the available
// providers, "a|b".
func providerChoices(reg *parts.Registry) string {
	return strings.Join(providerNames(reg.Available()), "|")
}

// providerValid says which providers a run may name, and which need root.
func providerValid(reg *parts.Registry) string {
	var out []string
	for _, p := range reg.Available() {
		if p.Traits.NeedsRoot {
			out = append(out, p.Name+" (root)")
		} else {
			out = append(out, p.Name)
		}
	}
	return wordList(out, "or")
}

// hostsValid says how many hosts of a role the providers that make hosts
// to the run's counts accept: "1 to 32 (local)".
func hostsValid(reg *parts.Registry, role func(infra.Traits) infra.Range) string {
	var out []string
	for _, p := range reg.Available() {
		if r := role(p.Traits); r.Applies() {
			out = append(out, fmt.Sprintf("%d to %d (%s)", r.Min, r.Max, p.Name))
		}
	}
	return strings.Join(out, "; ")
}

// dbHosts and clientHosts pick a role's bound from a provider's traits.
func dbHosts(t infra.Traits) infra.Range     { return t.DBHosts }
func clientHosts(t infra.Traits) infra.Range { return t.ClientHosts }

// flavorDefault says how a run without a flavor gets one: the tarball
// flavor when given a tarball, else each API's default.
func flavorDefault(reg *parts.Registry) string {
	var per []string
	for _, api := range reg.APIs() {
		if f := reg.DefaultFlavor(api); f != "" {
			per = append(per, fmt.Sprintf("%s (%s)", f, strings.ToUpper(string(api))))
		}
	}
	b := "what speaks the profile's API here: "
	if f, ok := reg.TarballFlavor(); ok {
		b += f + " with a tarball, else "
	}
	return b + wordList(per, "or")
}

// inventoryRemedy says how to resolve an inventory given with a provider
// that takes none: drop what chose the provider (the preset, the flag,
// the variable or the file's line) or the inventory, or name the provider
// that reads inventory files. A preset is named only when it is what chose
// the provider.
func (s *Spec) inventoryRemedy(reg *parts.Registry) string {
	drop := "drop the inventory"
	if w, ok := s.from["provider"]; ok {
		drop = "drop " + w + " or the inventory"
		for _, p := range presets {
			if strings.HasPrefix(w, "--"+p.Name+" ") {
				drop = "drop --" + p.Name
			}
		}
	}
	if f, ok := reg.FileProvider(); ok {
		return drop + ", or set provider: " + f
	}
	return drop
}

// flavorNeeds says why a flavor is not the default here: what it needs
// that a run does not have by default.
func flavorNeeds(reg *parts.Registry, name string) string {
	if f, ok := reg.Flavor(name); ok && f.Traits.Tarball {
		return "needs a release tarball, yb_tarball"
	}
	return "is not the default here"
}
