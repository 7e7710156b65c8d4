package gcp

import (
	"encoding/json"
	"io/fs"
	"maps"
	"net"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/ext/tryfunc"
	"github.com/hashicorp/hcl/v2/ext/typeexpr"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
	"github.com/zclconf/go-cty/cty/function"
	"github.com/zclconf/go-cty/cty/function/stdlib"
	ctyjson "github.com/zclconf/go-cty/cty/json"

	"github.com/ybbench/ybbench/infra/cloudtag"
	modules "github.com/ybbench/ybbench/terraform"
)

// The module's contract with this package, checked without Terraform's
// providers (which cannot be downloaded here): terraform/gcp is parsed,
// the variables moduleVars gives are converted to the types variables.tf
// declares and put through its validations, and the module's own
// expressions for the marks and names are evaluated with them and
// compared with what infra/cloudtag writes and the janitor reads back.

// gcpModule is terraform/gcp's top-level blocks, all files together.
func gcpModule(t *testing.T) []*hclsyntax.Block {
	t.Helper()
	m := modules.GCP()
	names, err := fs.Glob(m, "*.tf")
	if err != nil || len(names) == 0 {
		t.Fatalf("module files: %v %v", names, err)
	}
	var blocks []*hclsyntax.Block
	for _, n := range names {
		src, err := fs.ReadFile(m, n)
		if err != nil {
			t.Fatal(err)
		}
		f, diags := hclsyntax.ParseConfig(src, n, hcl.InitialPos)
		if diags.HasErrors() {
			t.Fatal(diags)
		}
		blocks = append(blocks, f.Body.(*hclsyntax.Body).Blocks...)
	}
	return blocks
}

// terraformFuncs are the Terraform functions the module's variables and
// locals call, from cty's standard library and hcl where they exist there,
// else as small equivalents of Terraform's.
func terraformFuncs() map[string]function.Function {
	str2bool := func(f func(a, b string) bool) function.Function {
		return function.New(&function.Spec{
			Params: []function.Parameter{{Name: "a", Type: cty.String}, {Name: "b", Type: cty.String}},
			Type:   function.StaticReturnType(cty.Bool),
			Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
				return cty.BoolVal(f(args[0].AsString(), args[1].AsString())), nil
			},
		})
	}
	return map[string]function.Function{
		"can": tryfunc.CanFunc, "try": tryfunc.TryFunc,
		"regex": stdlib.RegexFunc, "length": stdlib.LengthFunc, "distinct": stdlib.DistinctFunc,
		"contains": stdlib.ContainsFunc, "split": stdlib.SplitFunc, "formatdate": stdlib.FormatDateFunc,
		"range":       stdlib.RangeFunc,
		"startswith":  str2bool(strings.HasPrefix),
		"strcontains": str2bool(strings.Contains),
		"alltrue": function.New(&function.Spec{
			Params: []function.Parameter{{Name: "list", Type: cty.List(cty.Bool)}},
			Type:   function.StaticReturnType(cty.Bool),
			Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
				for _, v := range args[0].AsValueSlice() {
					if v.False() {
						return cty.False, nil
					}
				}
				return cty.True, nil
			},
		}),
		"tonumber": function.New(&function.Spec{
			Params: []function.Parameter{{Name: "v", Type: cty.DynamicPseudoType}},
			Type:   function.StaticReturnType(cty.Number),
			Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
				return convert.Convert(args[0], cty.Number)
			},
		}),
		// Terraform's cidrhost parses with net.ParseCIDR (host bits
		// allowed) and fails on anything else.
		"cidrhost": function.New(&function.Spec{
			Params: []function.Parameter{{Name: "prefix", Type: cty.String}, {Name: "hostnum", Type: cty.Number}},
			Type:   function.StaticReturnType(cty.String),
			Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
				_, n, err := net.ParseCIDR(args[0].AsString())
				if err != nil {
					return cty.NilVal, err
				}
				return cty.StringVal(n.IP.String()), nil
			},
		}),
	}
}

// ctyVars converts moduleVars' values to the types variables.tf declares,
// failing the test on a variable the module does not declare, a required
// one not given, or a value of the wrong type.
func ctyVars(t *testing.T, blocks []*hclsyntax.Block, vars map[string]any) map[string]cty.Value {
	t.Helper()
	out := map[string]cty.Value{}
	declared := map[string]bool{}
	for _, b := range blocks {
		if b.Type != "variable" {
			continue
		}
		name := b.Labels[0]
		declared[name] = true
		v, given := vars[name]
		if !given {
			if b.Body.Attributes["default"] == nil {
				t.Errorf("variable %s is required and not given", name)
			}
			continue
		}
		typ, diags := typeexpr.TypeConstraint(b.Body.Attributes["type"].Expr)
		if diags.HasErrors() {
			t.Fatalf("variable %s: %v", name, diags)
		}
		js, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		implied, err := ctyjson.ImpliedType(js)
		if err != nil {
			t.Fatal(err)
		}
		val, err := ctyjson.Unmarshal(js, implied)
		if err != nil {
			t.Fatal(err)
		}
		if out[name], err = convert.Convert(val, typ); err != nil {
			t.Errorf("variable %s: %s is not a %s: %v", name, js, typ.FriendlyName(), err)
		}
	}
	for name := range vars {
		if !declared[name] {
			t.Errorf("variable %s is given but the module does not declare it", name)
		}
	}
	return out
}

func testVars(t *testing.T) (map[string]any, cloudtag.Meta, *facts) {
	t.Helper()
	spec := testSpec(t)
	s, errs := readSettings(spec)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	f := &facts{settings: s}
	created := time.Date(2026, 12, 1, 17, 30, 15, 0, time.UTC)
	m := cloudtag.Meta{RunID: spec.Name, Owner: spec.Owner, Created: created, Expires: created.Add(s.lifetime)}
	ud := map[string]string{}
	for _, h := range f.hosts() {
		ud[h.Name] = "user data of " + h.Name
	}
	vars, err := moduleVars(f, m, "ubuntu-os-cloud/ubuntu-2204-jammy-v20261110", spec.PublicKey, ud)
	if err != nil {
		t.Fatal(err)
	}
	return vars, m, f
}

// TestModuleVariablesValid: every variable moduleVars gives is declared,
// of its declared type and passes the module's validations.
func TestModuleVariablesValid(t *testing.T) {
	blocks := gcpModule(t)
	vars, _, _ := testVars(t)
	cv := ctyVars(t, blocks, vars)
	ctx := &hcl.EvalContext{Variables: map[string]cty.Value{"var": cty.ObjectVal(cv)}, Functions: terraformFuncs()}
	n := 0
	for _, b := range blocks {
		if b.Type != "variable" || cv[b.Labels[0]] == cty.NilVal {
			continue
		}
		for _, v := range b.Body.Blocks {
			if v.Type != "validation" {
				continue
			}
			n++
			cond := v.Body.Attributes["condition"].Expr
			// Terraform before 1.9 refuses a validation that refers to
			// another variable (the module's minimum is 1.5.0).
			for _, tr := range cond.Variables() {
				if attr, ok := traversalAttr(tr, 1); tr.RootName() != "var" || !ok || attr != b.Labels[0] {
					t.Errorf("variable %s: its validation refers to %s", b.Labels[0], traversalString(tr))
				}
			}
			ok, diags := cond.Value(ctx)
			if diags.HasErrors() || !ok.True() {
				msg, _ := v.Body.Attributes["error_message"].Expr.Value(ctx)
				t.Errorf("variable %s fails its validation (%s): %v", b.Labels[0], msg.AsString(), diags)
			}
		}
	}
	if n < 10 {
		t.Errorf("only %d validations evaluated", n)
	}
}

// TestModuleMarksAreCloudtags: the labels and description the module
// computes from moduleVars are cloudtag's, and its resource names are the
// ones Destroy's check and the janitor look for.
func TestModuleMarksAreCloudtags(t *testing.T) {
	blocks := gcpModule(t)
	vars, m, f := testVars(t)
	cv := ctyVars(t, blocks, vars)
	ctx := &hcl.EvalContext{Variables: map[string]cty.Value{"var": cty.ObjectVal(cv)}, Functions: terraformFuncs()}
	locals := map[string]cty.Value{}
	for _, b := range blocks {
		if b.Type != "locals" {
			continue
		}
		for _, name := range []string{"labels", "description"} {
			if a := b.Body.Attributes[name]; a != nil {
				v, diags := a.Expr.Value(ctx)
				if diags.HasErrors() {
					t.Fatalf("local.%s: %v", name, diags)
				}
				locals[name] = v
			}
		}
	}

	labels := map[string]string{}
	for k, v := range locals["labels"].AsValueMap() {
		labels[k] = v.AsString()
	}
	want, err := cloudtag.GCPLabels(m)
	if err != nil {
		t.Fatal(err)
	}
	if !maps.Equal(labels, want) {
		t.Errorf("module labels %v\ncloudtag's     %v", labels, want)
	}
	found, err := cloudtag.ParseGCPLabels(labels)
	if err != nil || !found.Of(m.RunID) || !found.Expires.Equal(m.Expires) {
		t.Errorf("labels read back: %+v, %v", found, err)
	}

	desc := locals["description"].AsString()
	wantDesc, err := cloudtag.GCPDescription(m)
	if err != nil {
		t.Fatal(err)
	}
	if desc != wantDesc {
		t.Errorf("module description %q\ncloudtag's          %q", desc, wantDesc)
	}
	found, err = cloudtag.ParseGCPDescription(desc)
	if err != nil || !found.Of(m.RunID) || !found.Expires.Equal(m.Expires) {
		t.Errorf("description read back: %+v, %v", found, err)
	}

	names, err := cloudtag.NamesFor(m.RunID)
	if err != nil {
		t.Fatal(err)
	}
	wantNames := map[string]string{
		"google_compute_network.run":        names.Network,
		"google_compute_subnetwork.run":     names.Subnetwork,
		"google_compute_firewall.ssh":       names.FirewallSSH,
		"google_compute_firewall.internal":  names.FirewallInternal,
		"google_compute_instance.host/db-1": "",
	}
	if wantNames["google_compute_instance.host/db-1"], err = cloudtag.GCPName(m.RunID, "db-1"); err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, b := range blocks {
		if b.Type != "resource" {
			continue
		}
		addr := b.Labels[0] + "." + b.Labels[1]
		ectx := ctx.NewChild()
		if addr == "google_compute_instance.host" {
			addr += "/db-1"
			ectx.Variables = map[string]cty.Value{"each": cty.ObjectVal(map[string]cty.Value{"key": cty.StringVal("db-1")})}
		}
		if _, ok := wantNames[addr]; !ok {
			continue
		}
		v, diags := b.Body.Attributes["name"].Expr.Value(ectx)
		if diags.HasErrors() {
			t.Fatalf("%s name: %v", addr, diags)
		}
		got[addr] = v.AsString()
	}
	if !maps.Equal(got, wantNames) {
		t.Errorf("module names %v\nwant %v", got, wantNames)
	}
	// Every host's user data reaches the module, keyed as for_each keys
	// the instances.
	ud := vars["user_data"].(map[string]string)
	var hostNames []string
	for _, h := range f.hosts() {
		hostNames = append(hostNames, h.Name)
	}
	if !slices.Equal(slices.Sorted(maps.Keys(ud)), slices.Sorted(slices.Values(hostNames))) {
		t.Errorf("user data for %v, hosts %v", slices.Sorted(maps.Keys(ud)), hostNames)
	}
}

// traversalString is a reference as written (var.region).
func traversalString(tr hcl.Traversal) string {
	var b strings.Builder
	for i, step := range tr {
		switch s := step.(type) {
		case hcl.TraverseRoot:
			b.WriteString(s.Name)
		case hcl.TraverseAttr:
			if i > 0 {
				b.WriteString(".")
			}
			b.WriteString(s.Name)
		default:
			b.WriteString("[…]")
		}
	}
	return b.String()
}

// traversalAttr is the name of a reference's i-th step when it is an
// attribute.
func traversalAttr(tr hcl.Traversal, i int) (string, bool) {
	if i >= len(tr) {
		return "", false
	}
	a, ok := tr[i].(hcl.TraverseAttr)
	return a.Name, ok
}
