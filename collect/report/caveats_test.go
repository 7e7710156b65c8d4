package report

import (
	"bytes"
	"html"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"

	"github.com/ybbench/ybbench/collect"
)

var (
	// caveatsSection is report.html's caveats, and the same list in
	// report.md once rendered: the "Read this first" heading's list.
	htmlCaveats = regexp.MustCompile(`(?s)<section id="caveats">.*?<ul>(.*?)</ul>`)
	mdCaveats   = regexp.MustCompile(`(?s)<h2>Read this first</h2>\s*<ul>(.*?)</ul>`)
	listItem    = regexp.MustCompile(`(?s)<li[^>]*>(.*?)</li>`)
	tag         = regexp.MustCompile(`<[^>]+>`)
)

// items are the text of each <li> of a list, tags stripped, entities
// decoded and spaces folded: what a reader reads.
func items(list string) []string {
	var out []string
	for _, m := range listItem.FindAllStringSubmatch(list, -1) {
		out = append(out, strings.Join(strings.Fields(html.UnescapeString(tag.ReplaceAllString(m[1], ""))), " "))
	}
	return out
}

// Both reports say the same caveats, from the one list in result.json:
// report.html above its verdict and charts, report.md at its top (read
// through a CommonMark renderer, as a viewer shows it).
func TestBothReportsCarryTheSameCaveats(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "testdata", "*.result.json"))
	if err != nil || len(files) < 4 {
		t.Fatalf("fixture results: %v %v", files, err)
	}
	md := goldmark.New(goldmark.WithExtensions(extension.Table))
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		res, err := collect.ReadResult(raw)
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Caveats) < 2 {
			t.Errorf("%s: %d caveats recorded in the result", f, len(res.Caveats))
		}
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, ResultFile), raw, 0o644); err != nil {
			t.Fatal(err)
		}
		page, err := Build(dir)
		if err != nil {
			t.Fatal(err)
		}
		var h bytes.Buffer
		if err := page.WriteHTML(&h); err != nil {
			t.Fatal(err)
		}
		var m, mdHTML bytes.Buffer
		if err := collect.WriteMarkdown(&m, res); err != nil {
			t.Fatal(err)
		}
		if err := md.Convert(m.Bytes(), &mdHTML); err != nil {
			t.Fatal(err)
		}
		hs, ms := htmlCaveats.FindStringSubmatch(h.String()), mdCaveats.FindStringSubmatch(mdHTML.String())
		if hs == nil || ms == nil {
			t.Fatalf("%s: caveats in report.html %v, in report.md %v", f, hs != nil, ms != nil)
		}
		inHTML, inMD := items(hs[1]), items(ms[1])
		if len(inHTML) != len(res.Caveats) || !slices.Equal(inHTML, inMD) {
			t.Errorf("%s: the reports' caveats differ (result.json has %d):\nhtml: %q\nmd:   %q", f, len(res.Caveats), inHTML, inMD)
		}
		// Above every figure: the caveats come before the verdict and the
		// first workload.
		at := strings.Index(h.String(), `<section id="caveats">`)
		if v := strings.Index(h.String(), `<section id="verdict">`); at < 0 || v < at {
			t.Errorf("%s: the caveats are not above the verdict (at %d, verdict at %d)", f, at, v)
		}
	}
}
