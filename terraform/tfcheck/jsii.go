package tfcheck

import (
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"sort"
	"strings"
	"unicode"
)

// The jsii metadata of a cdktf provider package (@cdktf/provider-aws, …)
// holds, for every resource and data source, a class and its config
// interface, generated from the provider's own schema. Only the fields the
// derivation needs are decoded.
type jsiiAssembly struct {
	Name    string              `json:"name"`
	Version string              `json:"version"`
	Types   map[string]jsiiType `json:"types"`
}

type jsiiType struct {
	Kind        string     `json:"kind"`
	Base        string     `json:"base"`
	Docs        jsiiDocs   `json:"docs"`
	Interfaces  []string   `json:"interfaces"`
	Properties  []jsiiProp `json:"properties"`
	Initializer *struct {
		Parameters []struct {
			Name string  `json:"name"`
			Type jsiiRef `json:"type"`
		} `json:"parameters"`
	} `json:"initializer"`
}

type jsiiDocs struct {
	Summary string `json:"summary"`
	Remarks string `json:"remarks"`
}

type jsiiProp struct {
	Name     string   `json:"name"`
	Optional bool     `json:"optional"`
	Static   bool     `json:"static"`
	Docs     jsiiDocs `json:"docs"`
	Type     jsiiRef  `json:"type"`
}

type jsiiRef struct {
	Primitive  string `json:"primitive"`
	FQN        string `json:"fqn"`
	Collection *struct {
		Kind        string  `json:"kind"`
		ElementType jsiiRef `json:"elementtype"`
	} `json:"collection"`
	Union *struct {
		Types []jsiiRef `json:"types"`
	} `json:"union"`
}

// registryLink matches the Terraform Registry link that the generated docs
// carry: the provider, its version, an optional resources/data-sources page,
// an optional #attribute anchor, and the link text (the Terraform type).
var registryLink = regexp.MustCompile(`\{@link https://registry\.terraform\.io/providers/[a-z0-9-]+/([a-z0-9-]+)/([0-9][0-9.]*)/docs(?:/(resources|data-sources)/[^ #}]*)?(?:#([A-Za-z0-9_]+))? ([^}]*)\}`)

// Derive builds a compact schema from a provider package's .jsii file.
func Derive(r io.Reader) (*Schema, error) {
	var a jsiiAssembly
	if err := json.NewDecoder(r).Decode(&a); err != nil {
		return nil, fmt.Errorf("jsii: %w", err)
	}
	d := &deriver{a: &a, memo: map[string]*Block{}}
	s := &Schema{
		Package:     a.Name + "@" + a.Version,
		Resources:   map[string]*Block{},
		DataSources: map[string]*Block{},
	}
	// Sorted, so that the output and its ambiguity list are the same on
	// every run.
	names := make([]string, 0, len(a.Types))
	for fqn := range a.Types {
		names = append(names, fqn)
	}
	sort.Strings(names)
	for _, fqn := range names {
		if err := d.class(s, fqn, a.Types[fqn]); err != nil {
			return nil, err
		}
	}
	if s.Config == nil || len(s.Resources) == 0 {
		return nil, fmt.Errorf("jsii %s: no provider class or no resources found", s.Package)
	}
	return s, nil
}

type deriver struct {
	a    *jsiiAssembly
	memo map[string]*Block
}

// class adds one generated class to s if it represents a resource, a data
// source or the provider.
func (d *deriver) class(s *Schema, fqn string, t jsiiType) error {
	if t.Kind != "class" || t.Initializer == nil {
		return nil
	}
	m := registryLink.FindStringSubmatch(t.Docs.Summary)
	if m == nil || !strings.HasPrefix(t.Docs.Summary, "Represents a ") {
		return nil
	}
	provider, version, page, tfType := m[1], m[2], m[3], strings.TrimSpace(m[5])
	config := ""
	for _, p := range t.Initializer.Parameters {
		if p.Name == "config" {
			config = p.Type.FQN
		}
	}
	if config == "" {
		return fmt.Errorf("jsii %s: class %s has no config parameter", s.Package, fqn)
	}
	b, err := d.block(config, 0)
	if err != nil {
		return err
	}
	label := tfType
	switch {
	case t.Base == "cdktf.TerraformProvider" && page == "":
		s.Provider, s.Version, s.Config = provider, version, b
		return nil
	case t.Base == "cdktf.TerraformResource" && page == "resources":
		s.Resources[tfType] = b
	case t.Base == "cdktf.TerraformDataSource" && page == "data-sources":
		s.DataSources[tfType] = b
		label = "data." + tfType
	default:
		return nil
	}
	b.Exported, s.Ambiguous = exported(label, b, t.Properties, s.Ambiguous)
	return nil
}

// exported lists the attributes a reference may read: every argument, and
// the class's own properties in snake_case. A computed property whose
// snake_case form holds a digit is listed in ambiguous: the camelCase
// form does not say whether the digit started a word (cidr_block_2 and
// cidr_block2 both give cidrBlock2).
func exported(label string, b *Block, props []jsiiProp, ambiguous []string) ([]string, []string) {
	set := map[string]bool{}
	for name := range b.Attributes {
		set[name] = true
	}
	for name := range b.Blocks {
		set[name] = true
	}
	for _, p := range props {
		// tfResourceType is static; fooInput getters echo the argument foo;
		// internalValue is cdktf's own.
		if p.Static || strings.HasSuffix(p.Name, "Input") || p.Name == "internalValue" {
			continue
		}
		name := snake(p.Name)
		if !set[name] && strings.IndexFunc(name, unicode.IsDigit) >= 0 {
			ambiguous = append(ambiguous, label+"."+name)
		}
		set[name] = true
	}
	out := make([]string, 0, len(set))
	for name := range set {
		out = append(out, name)
	}
	sort.Strings(out)
	return out, ambiguous
}

// block derives the schema of a config interface: its properties and those
// of the interfaces it extends within the package (cdktf's own, such as
// TerraformMetaArguments, are Terraform's meta-arguments, not the
// provider's).
func (d *deriver) block(fqn string, depth int) (*Block, error) {
	if b, ok := d.memo[fqn]; ok {
		return b, nil
	}
	if depth > 32 {
		return nil, fmt.Errorf("jsii: nesting deeper than 32 at %s", fqn)
	}
	t, ok := d.a.Types[fqn]
	if !ok || t.Kind != "interface" {
		return nil, fmt.Errorf("jsii: %s is not an interface of the package", fqn)
	}
	b := &Block{Attributes: map[string]bool{}, Blocks: map[string]*Nested{}}
	d.memo[fqn] = b
	for _, parent := range t.Interfaces {
		if _, ours := d.a.Types[parent]; !ours {
			continue
		}
		pb, err := d.block(parent, depth+1)
		if err != nil {
			return nil, err
		}
		for k, v := range pb.Attributes {
			b.Attributes[k] = v
		}
		for k, v := range pb.Blocks {
			b.Blocks[k] = v
		}
	}
	for _, p := range t.Properties {
		if err := d.property(b, fqn, p, depth); err != nil {
			return nil, err
		}
	}
	// A nested block's readable attributes are the getters of the class
	// cdktf generates beside it (InstanceEbsBlockDeviceOutputReference):
	// its arguments and the computed ones, such as volume_id.
	if ref, ok := d.a.Types[fqn+"OutputReference"]; ok && ref.Kind == "class" {
		b.Exported, _ = exported(fqn, b, ref.Properties, nil)
	}
	return b, nil
}

// property adds one config property to b: a nested block when its docs say
// "… block." and its type is an interface of the package, an argument
// otherwise (objects of the plugin framework's nested attributes included).
func (d *deriver) property(b *Block, owner string, p jsiiProp, depth int) error {
	name := ""
	for _, text := range []string{p.Docs.Summary, p.Docs.Remarks} {
		if m := registryLink.FindStringSubmatch(text); m != nil && m[4] != "" {
			name = m[4]
			break
		}
	}
	if name == "" {
		name = snake(p.Name)
	}
	if elem := d.interfaceOf(p.Type); elem != "" && strings.HasSuffix(strings.TrimSpace(p.Docs.Summary), " block.") {
		nb, err := d.block(elem, depth+1)
		if err != nil {
			return fmt.Errorf("%s.%s: %w", owner, p.Name, err)
		}
		b.Blocks[name] = &Nested{Required: !p.Optional, Block: nb}
		return nil
	}
	b.Attributes[name] = !p.Optional
	if elem := d.interfaceOf(p.Type); elem != "" {
		nb, err := d.block(elem, depth+1)
		if err != nil {
			return fmt.Errorf("%s.%s: %w", owner, p.Name, err)
		}
		if b.Objects == nil {
			b.Objects = map[string]*Block{}
		}
		b.Objects[name] = nb
	}
	return nil
}

// interfaceOf returns the package interface a type reference holds (alone,
// in a union with cdktf.IResolvable, or as a collection's element), or "".
func (d *deriver) interfaceOf(r jsiiRef) string {
	if r.FQN != "" {
		if t, ok := d.a.Types[r.FQN]; ok && t.Kind == "interface" {
			return r.FQN
		}
	}
	if r.Collection != nil {
		return d.interfaceOf(r.Collection.ElementType)
	}
	if r.Union != nil {
		for _, u := range r.Union.Types {
			if f := d.interfaceOf(u); f != "" {
				return f
			}
		}
	}
	return ""
}

// snake converts a camelCase property name to Terraform's snake_case.
func snake(s string) string {
	var b strings.Builder
	for i, r := range s {
		if unicode.IsUpper(r) {
			if i > 0 {
				b.WriteByte('_')
			}
			r = unicode.ToLower(r)
		}
		b.WriteRune(r)
	}
	return b.String()
}
