package tfcheck

import (
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
)

// literal returns the value of an expression that needs no variables (a
// string, number or bool literal, or a list of them); ok is false for any
// other.
func literal(e hclsyntax.Expression) (cty.Value, bool) {
	if e == nil || len(e.Variables()) > 0 {
		return cty.NilVal, false
	}
	v, diags := e.Value(nil)
	if diags.HasErrors() || !v.IsWhollyKnown() || v.IsNull() {
		return cty.NilVal, false
	}
	return v, true
}

// literalString returns a string literal's value.
func literalString(e hclsyntax.Expression) (string, bool) {
	v, ok := literal(e)
	if !ok || v.Type() != cty.String {
		return "", false
	}
	return v.AsString(), true
}

// literalBool returns a bool literal's value.
func literalBool(e hclsyntax.Expression) (bool, bool) {
	v, ok := literal(e)
	if !ok || v.Type() != cty.Bool {
		return false, false
	}
	return v.True(), true
}

// reference renders an expression that is a plain reference
// (var.ssh_cidr, aws_subnet.run.cidr_block) as text, or "".
func reference(e hclsyntax.Expression) string {
	st, ok := e.(*hclsyntax.ScopeTraversalExpr)
	if !ok {
		return ""
	}
	var parts []string
	for _, step := range st.Traversal {
		switch s := step.(type) {
		case hcl.TraverseRoot:
			parts = append(parts, s.Name)
		case hcl.TraverseAttr:
			parts = append(parts, s.Name)
		default:
			return ""
		}
	}
	return strings.Join(parts, ".")
}

// objectKeys returns the literal keys of an object constructor and their
// value expressions; ok is false if e is not one or a key is not literal.
func objectKeys(e hclsyntax.Expression) (map[string]hclsyntax.Expression, bool) {
	oc, ok := e.(*hclsyntax.ObjectConsExpr)
	if !ok {
		return nil, false
	}
	out := map[string]hclsyntax.Expression{}
	for _, item := range oc.Items {
		k, ok := objectKey(item.KeyExpr)
		if !ok {
			return nil, false
		}
		out[k] = item.ValueExpr
	}
	return out, true
}

// objectKey returns an object key written as a bare word or a string.
func objectKey(e hclsyntax.Expression) (string, bool) {
	if k, ok := e.(*hclsyntax.ObjectConsKeyExpr); ok {
		if name := hcl.ExprAsKeyword(k.Wrapped); name != "" && !k.ForceNonLiteral {
			return name, true
		}
		e = k.Wrapped
	}
	return literalString(e)
}

// resolveLocal follows local.NAME to the expression the module's locals
// give it; other expressions are returned as they are.
func (m *Module) resolveLocal(e hclsyntax.Expression) hclsyntax.Expression {
	ref := reference(e)
	name, ok := strings.CutPrefix(ref, "local.")
	if !ok || strings.Contains(name, ".") {
		return e
	}
	for _, b := range m.Blocks("locals") {
		if a := b.Body.Attributes[name]; a != nil {
			return a.Expr
		}
	}
	return e
}

// templateText returns the literal parts of a string template (the text
// around its interpolations), for checks of what a description says.
func templateText(e hclsyntax.Expression) string {
	t, ok := e.(*hclsyntax.TemplateExpr)
	if !ok {
		s, _ := literalString(e)
		return s
	}
	var b strings.Builder
	for _, p := range t.Parts {
		if s, ok := literalString(p); ok {
			b.WriteString(s)
		} else {
			b.WriteString("${…}")
		}
	}
	return b.String()
}
