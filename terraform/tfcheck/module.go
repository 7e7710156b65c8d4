package tfcheck

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclparse"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
)

// Module is a parsed Terraform module: its .tf files, in name order.
type Module struct {
	Dir   string
	Files []*File
}

// File is one parsed .tf file; Name is relative to the module's directory.
type File struct {
	Name string
	Body *hclsyntax.Body
}

// Finding is one problem, at a position in a module's file.
type Finding struct {
	File string
	Line int
	Msg  string
}

// String renders a finding as file:line: message.
func (f Finding) String() string { return fmt.Sprintf("%s:%d: %s", f.File, f.Line, f.Msg) }

// ParseModule parses every .tf file of dir with HCL's native syntax. A
// syntax error is an error naming the file and line.
func ParseModule(dir string) (*Module, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*.tf"))
	if err != nil {
		return nil, err
	}
	if len(paths) == 0 {
		return nil, fmt.Errorf("module %s: no .tf files", dir)
	}
	sort.Strings(paths)
	p := hclparse.NewParser()
	m := &Module{Dir: dir}
	for _, path := range paths {
		src, err := os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("module %s: %w", dir, err)
		}
		name := filepath.Base(path)
		f, diags := p.ParseHCL(src, name)
		if diags.HasErrors() {
			return nil, fmt.Errorf("module %s: %s", dir, diags.Error())
		}
		m.Files = append(m.Files, &File{Name: name, Body: f.Body.(*hclsyntax.Body)})
	}
	return m, nil
}

// finding makes a Finding at the start of rng.
func finding(rng hcl.Range, format string, args ...any) Finding {
	return Finding{File: rng.Filename, Line: rng.Start.Line, Msg: fmt.Sprintf(format, args...)}
}

// sortFindings orders findings by file and line, for stable reports.
func sortFindings(fs []Finding) {
	sort.SliceStable(fs, func(i, j int) bool {
		if fs[i].File != fs[j].File {
			return fs[i].File < fs[j].File
		}
		return fs[i].Line < fs[j].Line
	})
}

// Blocks returns the module's top-level blocks of one type ("resource",
// "provider", …), in file order.
func (m *Module) Blocks(typ string) []*hclsyntax.Block {
	var out []*hclsyntax.Block
	for _, f := range m.Files {
		for _, b := range f.Body.Blocks {
			if b.Type == typ {
				out = append(out, b)
			}
		}
	}
	return out
}

// Resources returns the module's resource blocks of one type.
func (m *Module) Resources(typ string) []*hclsyntax.Block {
	var out []*hclsyntax.Block
	for _, b := range m.Blocks("resource") {
		if len(b.Labels) == 2 && b.Labels[0] == typ {
			out = append(out, b)
		}
	}
	return out
}

// providerOf is the provider local name a resource type belongs to: the
// part before the first underscore (aws_instance → aws).
func providerOf(typ string) string {
	p, _, _ := strings.Cut(typ, "_")
	return p
}

// PinnedVersion returns the version constraint the module's
// required_providers gives provider (a string literal), or "".
func PinnedVersion(m *Module, provider string) string {
	for _, tf := range m.Blocks("terraform") {
		for _, rp := range tf.Body.Blocks {
			if rp.Type != "required_providers" {
				continue
			}
			a := rp.Body.Attributes[provider]
			if a == nil {
				continue
			}
			v, diags := a.Expr.Value(nil)
			if diags.HasErrors() || !v.Type().IsObjectType() || !v.Type().HasAttribute("version") {
				return ""
			}
			ver := v.GetAttr("version")
			if ver.Type() != cty.String || ver.IsNull() {
				return ""
			}
			return ver.AsString()
		}
	}
	return ""
}
