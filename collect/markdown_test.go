package collect_test

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/text"

	"github.com/ybbench/ybbench/collect"
)

// hostile is what a user could put in any string a report shows (an
// --owner, a label, a host name, a path, an error): blank lines that would
// end a code span or a list item, raw HTML, Markdown that would link or
// emphasise, a backtick run, a table cell's end, an entity.
const hostile = "x`` y\n\n<script>alert(3)</script> <img src=x onerror=alert(4)> **b** [l](javascript:alert(5)) | &amp; \\<i>"

// hostileAll sets every string of v (fields, slices, map values) to
// hostile, and every map key too, so no field of a result is left out.
func hostileAll(v reflect.Value) {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			hostileAll(v.Elem())
		}
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				hostileAll(v.Field(i))
			}
		}
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			hostileAll(v.Index(i))
		}
	case reflect.Map:
		if v.IsNil() || v.Type().Key().Kind() != reflect.String {
			return
		}
		out := reflect.MakeMap(v.Type())
		n := 0
		for _, k := range v.MapKeys() {
			val := reflect.New(v.Type().Elem()).Elem()
			val.Set(v.MapIndex(k))
			hostileAll(val)
			key := reflect.New(v.Type().Key()).Elem()
			key.SetString(hostile + strings.Repeat(" ", n)) // keys stay apart
			out.SetMapIndex(key, val)
			n++
		}
		v.Set(out)
	case reflect.String:
		if v.CanSet() {
			v.SetString(hostile)
		}
	}
}

// Every user-supplied string in report.md renders as the text it is: with
// every string of every fixture result made hostile, a CommonMark renderer
// finds no raw HTML and no link in the report, and the hostile words are
// there as text. The controls: the unescaped text does give raw HTML and
// a link, so the check can see them.
func TestMarkdownRendersUserTextAsText(t *testing.T) {
	md := goldmark.New(goldmark.WithExtensions(extension.Table))
	unsafe := func(src []byte) []string {
		doc := md.Parser().Parse(text.NewReader(src))
		var found []string
		ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
			if !entering {
				return ast.WalkContinue, nil
			}
			switch n.Kind() {
			case ast.KindRawHTML, ast.KindHTMLBlock, ast.KindLink, ast.KindAutoLink, ast.KindImage:
				found = append(found, n.Kind().String())
			}
			return ast.WalkContinue, nil
		})
		return found
	}
	for _, control := range []struct{ src, want string }{
		{"- " + hostile + "\n", "HTMLBlock"},
		{"- " + strings.ReplaceAll(hostile, "\n", " ") + "\n", "RawHTML"},
		{"- " + strings.ReplaceAll(hostile, "\n", " ") + "\n", "Link"},
	} {
		if got := unsafe([]byte(control.src)); !slices.Contains(got, control.want) {
			t.Fatalf("the check finds %v in the raw text %q, not %s: it cannot see what it looks for", got, control.src, control.want)
		}
	}
	files, err := filepath.Glob(filepath.Join("testdata", "*.result.json"))
	if err != nil || len(files) < 4 {
		t.Fatalf("fixture results: %v %v", files, err)
	}
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		res, err := collect.ReadResult(raw)
		if err != nil {
			t.Fatal(err)
		}
		hostileAll(reflect.ValueOf(res))
		var b bytes.Buffer
		if err := collect.WriteMarkdown(&b, res); err != nil {
			t.Fatal(err)
		}
		if got := unsafe(b.Bytes()); len(got) > 0 {
			t.Errorf("%s: report.md of a hostile result holds %v:\n%s", f, got, b.String())
		}
		var html bytes.Buffer
		if err := md.Convert(b.Bytes(), &html); err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{"&lt;script&gt;alert(3)&lt;/script&gt;", "&lt;img src=x onerror=alert(4)&gt;", "**b**", "[l](javascript:alert(5))"} {
			if !strings.Contains(html.String(), want) {
				t.Errorf("%s: the rendered report lacks the text %q", f, want)
			}
		}
	}
}
