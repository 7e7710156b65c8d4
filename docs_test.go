package ybbench_test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"
)

// readmeMaxLines is what a newcomer reads in five minutes; the rest of the
// documentation is in docs/, one page per story.
const readmeMaxLines = 250

// docPages are the Markdown files the documentation checks cover: the
// README and every page under docs/.
func docPages(t *testing.T) []string {
	t.Helper()
	pages, err := filepath.Glob(filepath.Join("docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	if len(pages) < 5 {
		t.Fatalf("docs/ holds %d pages: not at the module's root?", len(pages))
	}
	return append([]string{"README.md"}, pages...)
}

// Every relative link of the README and of docs/ points to a file that
// exists, and an anchor into a Markdown file to one of its headings.
func TestDocLinks(t *testing.T) {
	for _, page := range docPages(t) {
		for _, p := range checkLinks(page) {
			t.Error(p)
		}
	}
}

// Every `make TARGET` the documentation names is a target of the Makefile.
func TestDocMakeTargets(t *testing.T) {
	targets, err := makeTargets("Makefile")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"demo", "test"} {
		if !targets[want] {
			t.Fatalf("the Makefile has no target %q (targets: %v): is the parser reading it?", want, targets)
		}
	}
	named := 0
	for _, page := range docPages(t) {
		b, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range makeMentions(string(b)) {
			named++
			if !targets[m.target] {
				t.Errorf("%s:%d: `make %s`: the Makefile has no such target", page, m.line, m.target)
			}
		}
	}
	if named < 5 {
		t.Errorf("found %d `make` commands in the documentation: is the scanner reading it?", named)
	}
}

// The README stays short, says what cannot be exercised here, and links to
// every page of docs/.
func TestReadmeShortAndLinked(t *testing.T) {
	b, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	if n := strings.Count(text, "\n"); n > readmeMaxLines {
		t.Errorf("README.md has %d lines, at most %d: move the detail to docs/", n, readmeMaxLines)
	}
	for _, want := range []string{"make demo", "make test"} {
		if !strings.Contains(text, want) {
			t.Errorf("README.md does not name %q", want)
		}
	}
	linked := map[string]bool{}
	for _, l := range markdownLinks(text) {
		path, _, _ := strings.Cut(l.target, "#")
		linked[filepath.Clean(path)] = true
	}
	pages, _ := filepath.Glob(filepath.Join("docs", "*.md"))
	for _, p := range pages {
		if !linked[p] {
			t.Errorf("README.md does not link to %s", p)
		}
	}
}

// The checkers find what they are for: a good link and target pass, a
// broken file, a broken anchor and an unknown target are each named.
func TestDocCheckersControls(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	write("sub/b.md", "# Page B\n\n## The `run` directory: files\n\ntext\n\n## Page B\n")
	write("img.png", "png")
	a := write("a.md", strings.Join([]string{
		"# A",
		"A [good link](sub/b.md#the-run-directory-files), [a repeated heading](sub/b.md#page-b-1),",
		"![an image](img.png \"title\"), [a web page](https://example.com/x.md) and [here](#a).",
		"A [broken file](sub/missing.md) and a [broken anchor](sub/b.md#no-such-heading),",
		"and [a broken anchor here](#nowhere).",
		"`[not a link](in/code.md)`",
		"```",
		"[not a link either](fenced.md)",
		"make demo                # a good target",
		"make nosuch BENCH_ARGS=\"-only sysbench\"",
		"```",
		"Run `make test-unit` or `make bogus`; to make things is prose.",
	}, "\n")+"\n")
	got := checkLinks(a)
	wantBroken := []string{"sub/missing.md", "sub/b.md#no-such-heading", "#nowhere"}
	if len(got) != len(wantBroken) {
		t.Errorf("checkLinks found %d problems, want %d:\n%s", len(got), len(wantBroken), strings.Join(got, "\n"))
	}
	for _, w := range wantBroken {
		if !slices.ContainsFunc(got, func(p string) bool { return strings.Contains(p, "("+w+")") }) {
			t.Errorf("checkLinks did not name the broken link %s:\n%s", w, strings.Join(got, "\n"))
		}
	}
	for _, good := range []string{"sub/b.md#the-run-directory-files", "sub/b.md#page-b-1", "img.png", "example.com", "(#a)", "code.md", "fenced.md"} {
		if slices.ContainsFunc(got, func(p string) bool { return strings.Contains(p, good) }) {
			t.Errorf("checkLinks named %s, which is no broken link:\n%s", good, strings.Join(got, "\n"))
		}
	}

	mk := write("Makefile", ".PHONY: demo test-unit\nVERSION ?= 1\nX := a:b\n\ndemo: build ## the demo\n\techo demo\ntest-unit:\n\techo\n")
	targets, err := makeTargets(mk)
	if err != nil {
		t.Fatal(err)
	}
	if !targets["demo"] || !targets["test-unit"] || targets[".PHONY"] || targets["X"] || targets["VERSION"] || len(targets) != 2 {
		t.Errorf("makeTargets = %v, want demo and test-unit", targets)
	}
	text, _ := os.ReadFile(a)
	var bad []string
	for _, m := range makeMentions(string(text)) {
		if !targets[m.target] {
			bad = append(bad, m.target)
		}
	}
	if !slices.Equal(bad, []string{"nosuch", "bogus"}) {
		t.Errorf("unknown make targets found: %q, want [nosuch bogus]", bad)
	}
}

// link is a Markdown link's target and the line it is on.
type link struct {
	target string
	line   int
}

var (
	fenceRE      = regexp.MustCompile("^\\s*(```|~~~)")
	codeSpanRE   = regexp.MustCompile("`+[^`]*`+")
	inlineLinkRE = regexp.MustCompile(`!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)`)
	refLinkRE    = regexp.MustCompile(`^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+"[^"]*")?\s*$`)
	headingRE    = regexp.MustCompile(`^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$`)
	schemeRE     = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.-]*:`)
)

// proseLines calls fn with each line of a Markdown text outside fenced
// code blocks (its number from 1), with inline code spans blanked out.
func proseLines(text string, fn func(n int, line string)) {
	fenced := false
	for i, line := range strings.Split(text, "\n") {
		if fenceRE.MatchString(line) {
			fenced = !fenced
			continue
		}
		if fenced {
			continue
		}
		fn(i+1, codeSpanRE.ReplaceAllString(line, "``"))
	}
}

// markdownLinks are a text's inline and reference links and images,
// outside code.
func markdownLinks(text string) []link {
	var out []link
	proseLines(text, func(n int, line string) {
		for _, m := range inlineLinkRE.FindAllStringSubmatch(line, -1) {
			out = append(out, link{m[1], n})
		}
		if m := refLinkRE.FindStringSubmatch(line); m != nil {
			out = append(out, link{m[1], n})
		}
	})
	return out
}

// headingSlugs are the anchors GitHub gives a Markdown text's headings: the
// heading's text lower-cased, without its Markdown and punctuation (letters,
// digits, '-' and '_' kept), spaces as '-', and a repeated slug numbered.
func headingSlugs(text string) map[string]bool {
	slugs := map[string]bool{}
	seen := map[string]int{}
	fenced := false
	for _, line := range strings.Split(text, "\n") {
		if fenceRE.MatchString(line) {
			fenced = !fenced
			continue
		}
		m := headingRE.FindStringSubmatch(line)
		if fenced || m == nil {
			continue
		}
		s := slugOf(m[2])
		if k := seen[s]; k > 0 {
			seen[s]++
			s = fmt.Sprintf("%s-%d", s, k)
		} else {
			seen[s] = 1
		}
		slugs[s] = true
	}
	return slugs
}

// slugOf is one heading's GitHub anchor.
func slugOf(heading string) string {
	// A link in a heading reads as its text.
	heading = regexp.MustCompile(`!?\[([^\]]*)\]\([^)]*\)`).ReplaceAllString(heading, "$1")
	var b strings.Builder
	for _, r := range strings.ToLower(heading) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// checkLinks returns a problem for each relative link of the Markdown file
// page whose file does not exist, or whose anchor names no heading of the
// Markdown file it points into.
func checkLinks(page string) []string {
	b, err := os.ReadFile(page)
	if err != nil {
		return []string{err.Error()}
	}
	var problems []string
	slugsOf := map[string]map[string]bool{}
	for _, l := range markdownLinks(string(b)) {
		if schemeRE.MatchString(l.target) || strings.HasPrefix(l.target, "//") {
			continue // a web page (or mail): not checked here
		}
		path, anchor, _ := strings.Cut(l.target, "#")
		file := page
		if path != "" {
			file = filepath.Join(filepath.Dir(page), filepath.FromSlash(path))
			if _, err := os.Stat(file); err != nil {
				problems = append(problems, fmt.Sprintf("%s:%d: link (%s): %s does not exist", page, l.line, l.target, file))
				continue
			}
		}
		if anchor == "" || !strings.HasSuffix(file, ".md") {
			continue
		}
		slugs, ok := slugsOf[file]
		if !ok {
			text, err := os.ReadFile(file)
			if err != nil {
				problems = append(problems, fmt.Sprintf("%s:%d: link (%s): %v", page, l.line, l.target, err))
				continue
			}
			slugs = headingSlugs(string(text))
			slugsOf[file] = slugs
		}
		if !slugs[strings.ToLower(anchor)] {
			problems = append(problems, fmt.Sprintf("%s:%d: link (%s): %s has no heading #%s", page, l.line, l.target, file, anchor))
		}
	}
	return problems
}

// makeTargets are the targets a Makefile defines (rules, not variables).
func makeTargets(path string) (map[string]bool, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	rule := regexp.MustCompile(`^([A-Za-z0-9_.%/-]+(?:[ \t]+[A-Za-z0-9_.%/-]+)*)[ \t]*::?([^=]|$)`)
	targets := map[string]bool{}
	for _, line := range strings.Split(string(b), "\n") {
		m := rule.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		for _, t := range strings.Fields(m[1]) {
			if !strings.HasPrefix(t, ".") {
				targets[t] = true
			}
		}
	}
	return targets, nil
}

// makeMention is a `make TARGET` in a text's code, and its line.
type makeMention struct {
	target string
	line   int
}

var makeCmdRE = regexp.MustCompile(`(?:^|[\s;&|(])make\s+(.*)$`)

// makeMentions finds every make command in a Markdown text's code — inline
// code spans and fenced blocks (comments left out) — and returns its
// targets: its words that are neither options nor variable assignments.
// The verb in prose ("make the hosts") is not a command.
func makeMentions(text string) []makeMention {
	var out []makeMention
	scan := func(n int, code string) {
		m := makeCmdRE.FindStringSubmatch(code)
		if m == nil {
			return
		}
		for _, w := range shellWords(m[1]) {
			if w == "&&" || w == "||" || w == ";" || w == "|" || strings.HasPrefix(w, "#") {
				break
			}
			if strings.HasPrefix(w, "-") || strings.Contains(w, "=") {
				continue
			}
			out = append(out, makeMention{w, n})
		}
	}
	fenced := false
	for i, line := range strings.Split(text, "\n") {
		if fenceRE.MatchString(line) {
			fenced = !fenced
			continue
		}
		if fenced {
			if j := strings.Index(line, " #"); j >= 0 {
				line = line[:j]
			}
			scan(i+1, line)
			continue
		}
		for _, span := range codeSpanRE.FindAllString(line, -1) {
			scan(i+1, strings.Trim(span, "`"))
		}
	}
	return out
}

// shellWords splits a command line into words as a shell would for the
// simple cases the documentation has: quotes group, and are removed.
func shellWords(s string) []string {
	var words []string
	var cur strings.Builder
	in, quote := false, rune(0)
	for _, r := range s {
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			} else {
				cur.WriteRune(r)
			}
		case r == '"' || r == '\'':
			quote, in = r, true
		case unicode.IsSpace(r):
			if in {
				words = append(words, cur.String())
				cur.Reset()
				in = false
			}
		default:
			cur.WriteRune(r)
			in = true
		}
	}
	if in {
		words = append(words, cur.String())
	}
	return words
}
