package tfcheck

import (
	"sort"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
)

// Terraform's own arguments and blocks in resource and data blocks: they
// are not in any provider's schema.
var (
	resourceMetaArgs   = map[string]bool{"count": true, "for_each": true, "depends_on": true, "provider": true}
	resourceMetaBlocks = map[string]bool{"lifecycle": true, "provisioner": true, "connection": true}
	dataMetaBlocks     = map[string]bool{"lifecycle": true}
	providerMetaArgs   = map[string]bool{"alias": true, "version": true}
)

// CheckSchema checks m against the providers' schemas (keyed by provider
// local name): every resource and data source type must exist; every
// argument and block, at any depth, must exist and be written as what it
// is (argument or block); every required argument and block must be
// there; every reference to a resource or data source must name one the
// module declares and an attribute it exports. Dynamic blocks are checked
// through their content, object arguments through their constructors' keys.
// Not checked: attributes read through a for expression's variable, value
// types, and conflicts between arguments. Stricter than Terraform in one
// case: the jsii metadata does not tell an SDKv2 argument in
// "attributes as blocks" mode (aws_route_table's route, aws_security_group's
// ingress) from a plugin-framework nested attribute, so writing either as a
// block is reported; the modules use separate rule and route resources.
func CheckSchema(m *Module, schemas map[string]*Schema) []Finding {
	c := &checker{schemas: schemas, declared: map[string]string{}}
	for _, b := range m.Blocks("provider") {
		c.provider(b)
	}
	for _, kind := range []string{"resource", "data"} {
		for _, b := range m.Blocks(kind) {
			c.declare(kind, b)
		}
	}
	for _, f := range m.Files {
		c.references(f.Body)
	}
	sortFindings(c.out)
	return c.out
}

type checker struct {
	schemas map[string]*Schema
	// declared maps "type.name" and "data.type.name" to the type.
	declared map[string]string
	out      []Finding
}

func (c *checker) add(f Finding) { c.out = append(c.out, f) }

func (c *checker) provider(b *hclsyntax.Block) {
	if len(b.Labels) != 1 {
		return
	}
	s := c.schemas[b.Labels[0]]
	if s == nil {
		c.add(finding(b.DefRange(), "provider %q: no schema for this provider", b.Labels[0]))
		return
	}
	c.body(b.Body, s.Config, "provider "+b.Labels[0], providerMetaArgs, nil)
}

// declare checks one resource or data block against its type's schema and
// records it for the reference check.
func (c *checker) declare(kind string, b *hclsyntax.Block) {
	if len(b.Labels) != 2 {
		return
	}
	typ, name := b.Labels[0], b.Labels[1]
	key := typ + "." + name
	what := "resource " + typ
	if kind == "data" {
		key = "data." + key
		what = "data source " + typ
	}
	c.declared[key] = typ
	s := c.schemas[providerOf(typ)]
	if s == nil {
		c.add(finding(b.DefRange(), "%s: no schema for provider %q", what, providerOf(typ)))
		return
	}
	table, metaBlocks := s.Resources, resourceMetaBlocks
	if kind == "data" {
		table, metaBlocks = s.DataSources, dataMetaBlocks
	}
	sch := table[typ]
	if sch == nil {
		c.add(finding(b.LabelRanges[0], "unknown %s type %q (provider %s %s)", kind, typ, s.Provider, s.Version))
		return
	}
	c.body(b.Body, sch, key, resourceMetaArgs, metaBlocks)
}

// body checks a block body against a schema block; path names it in
// findings (aws_instance.host.metadata_options).
func (c *checker) body(body *hclsyntax.Body, sch *Block, path string, metaArgs, metaBlocks map[string]bool) {
	seen := map[string]bool{}
	for name, a := range body.Attributes {
		seen[name] = true
		switch {
		case metaArgs[name]:
		case hasKey(sch.Attributes, name):
			if obj := sch.Objects[name]; obj != nil {
				c.objectKeys(a.Expr, obj, path+"."+name)
			}
		case sch.Blocks[name] != nil:
			c.add(finding(a.NameRange, "%s: %q is a block, not an argument: write %s { … }", path, name, name))
		default:
			c.add(finding(a.NameRange, "%s: unknown argument %q", path, name))
		}
	}
	for _, blk := range body.Blocks {
		name, content := blk.Type, blk.Body
		if name == "dynamic" && len(blk.Labels) == 1 {
			name, content = blk.Labels[0], dynamicContent(blk)
		} else if metaBlocks[name] {
			continue
		}
		seen[name] = true
		nested := sch.Blocks[name]
		switch {
		case nested != nil:
			if content != nil {
				c.body(content, nested.Block, path+"."+name, nil, nil)
			}
		case hasKey(sch.Attributes, name):
			c.add(finding(blk.TypeRange, "%s: %q is an argument, not a block: write %s = …", path, name, name))
		default:
			c.add(finding(blk.TypeRange, "%s: unknown block %q", path, name))
		}
	}
	for _, name := range sortedKeys(sch.Attributes) {
		if sch.Attributes[name] && !seen[name] {
			c.add(finding(body.SrcRange, "%s: missing required argument %q", path, name))
		}
	}
	for _, name := range sortedNested(sch.Blocks) {
		if sch.Blocks[name].Required && !seen[name] {
			c.add(finding(body.SrcRange, "%s: missing required block %q", path, name))
		}
	}
}

// objectKeys checks the keys of an object argument written as an object
// (or a list of objects) constructor against the object's schema. Values
// built any other way (a variable, a function) are not checked.
func (c *checker) objectKeys(e hclsyntax.Expression, obj *Block, path string) {
	for _, el := range elements(e) {
		oc, ok := el.(*hclsyntax.ObjectConsExpr)
		if !ok {
			continue
		}
		for _, item := range oc.Items {
			k, ok := objectKey(item.KeyExpr)
			if ok && !hasKey(obj.Attributes, k) && obj.Blocks[k] == nil {
				c.add(finding(item.KeyExpr.Range(), "%s: unknown argument %q", path, k))
			}
		}
	}
}

// dynamicContent returns the content block of a dynamic block (nil when it
// has none: Terraform reports that itself).
func dynamicContent(b *hclsyntax.Block) *hclsyntax.Body {
	for _, c := range b.Body.Blocks {
		if c.Type == "content" {
			return c.Body
		}
	}
	return nil
}

// references checks every traversal in body that starts at a resource or
// data source: the object must be declared and the attribute read must be
// exported.
func (c *checker) references(body *hclsyntax.Body) {
	hclsyntax.VisitAll(body, func(n hclsyntax.Node) hcl.Diagnostics {
		switch e := n.(type) {
		case *hclsyntax.ScopeTraversalExpr:
			c.traversal(e.Traversal, nil)
		case *hclsyntax.RelativeTraversalExpr:
			if t := objectTraversal(e.Source); t != nil {
				c.traversal(t, e.Traversal)
			}
		case *hclsyntax.SplatExpr:
			if t := objectTraversal(e.Source); t != nil {
				if rel, ok := e.Each.(*hclsyntax.RelativeTraversalExpr); ok {
					c.traversal(t, rel.Traversal)
				}
			}
		}
		return nil
	})
}

// objectTraversal returns the traversal of an expression that names a
// resource instance (aws_instance.host or aws_instance.host[k]), or nil.
func objectTraversal(e hclsyntax.Expression) hcl.Traversal {
	if ix, ok := e.(*hclsyntax.IndexExpr); ok {
		e = ix.Collection
	}
	if st, ok := e.(*hclsyntax.ScopeTraversalExpr); ok {
		return st.Traversal
	}
	return nil
}

// traversal checks a reference: t from its root, rest what follows an
// index expression or a splat (nil when t is the whole reference).
func (c *checker) traversal(t, rest hcl.Traversal) {
	root := t.RootName()
	n := 2 // resource: type.name
	if root == "data" {
		n = 3 // data.type.name
	}
	if len(t) < n {
		return
	}
	names := make([]string, 0, n)
	for _, step := range t[:n] {
		switch s := step.(type) {
		case hcl.TraverseRoot:
			names = append(names, s.Name)
		case hcl.TraverseAttr:
			names = append(names, s.Name)
		default:
			return
		}
	}
	typ := names[n-2]
	s := c.schemas[providerOf(typ)]
	key := joinDots(names)
	table := map[string]*Block(nil)
	if s != nil {
		table = s.Resources
		if root == "data" {
			table = s.DataSources
		}
	}
	_, declared := c.declared[key]
	if !declared {
		// A root that is neither a declared resource nor a known type is
		// something else: a variable of a for expression or an iterator.
		if table[typ] != nil || root == "data" {
			c.add(finding(t.SourceRange(), "reference to %s, which the module does not declare", key))
		}
		return
	}
	sch := table[typ]
	if sch == nil {
		return // the declaration was reported
	}
	c.attributes(key, sch, append(append(hcl.Traversal{}, t[n:]...), rest...))
}

// attributes checks the attribute steps of a reference below the object
// key: each must be exported by the block it reads from, down through
// nested blocks whose readable attributes the schema knows.
func (c *checker) attributes(key string, sch *Block, steps hcl.Traversal) {
	for sch != nil && len(sch.Exported) > 0 {
		attr, rng, after := firstAttr(steps)
		if attr == "" {
			return
		}
		if !sch.Exports(attr) {
			c.add(finding(rng, "%s has no attribute %q", key, attr))
			return
		}
		key += "." + attr
		switch {
		case sch.Blocks[attr] != nil:
			sch = sch.Blocks[attr].Block
		case sch.Objects[attr] != nil:
			sch = sch.Objects[attr]
		default:
			return
		}
		steps = after
	}
}

// firstAttr returns the first attribute step, skipping index steps, and
// the steps after it.
func firstAttr(t hcl.Traversal) (string, hcl.Range, hcl.Traversal) {
	for i, step := range t {
		switch s := step.(type) {
		case hcl.TraverseAttr:
			return s.Name, s.SrcRange, t[i+1:]
		case hcl.TraverseIndex, hcl.TraverseSplat:
			continue
		default:
			return "", hcl.Range{}, nil
		}
	}
	return "", hcl.Range{}, nil
}

func joinDots(names []string) string {
	out := names[0]
	for _, n := range names[1:] {
		out += "." + n
	}
	return out
}

func hasKey(m map[string]bool, k string) bool {
	_, ok := m[k]
	return ok
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func sortedNested(m map[string]*Nested) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
