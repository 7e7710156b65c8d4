package collect

import (
	"fmt"
	"io"
	"strings"
	"unicode"

	"github.com/ybbench/ybbench/internal/shellquote"
)

// Caveat is one thing a reader must know before reading a figure: its
// kind (what it is about, for a program), a short title and its words, as
// plain text. Both reports render the same list, from result.json.
type Caveat struct {
	Kind  string `json:"kind"`
	Title string `json:"title"`
	Text  string `json:"text"`
	// Code is a command line the caveat quotes (the command kind), shown
	// as code between the title and the text.
	Code string `json:"code,omitempty"`
}

// The caveats' kinds.
const (
	CaveatOtherDatabase = "other-database"
	CaveatSharedMachine = "shared-machine"
	CaveatOverridden    = "overridden"
	CaveatChosen        = "chosen"
	CaveatPreflight     = "preflight"
	CaveatCommand       = "command"
)

// CaveatsOf are the caveats of a result: when the database was not the
// one the published figures were measured on, when the hosts shared one
// machine (and its cores), what the user overrode and what a default
// chose, the preflight's warnings, and the tool and exact command line
// that made the run. A result written before caveats were recorded gets
// them from its other fields.
func CaveatsOf(r *Result) []Caveat {
	if len(r.Caveats) > 0 {
		return r.Caveats
	}
	return caveatsOf(r)
}

// caveatsOf derives the caveats from the result's other fields.
func caveatsOf(r *Result) []Caveat {
	var out []Caveat
	if c, ok := otherDatabase(r); ok {
		out = append(out, c)
	}
	if m := r.Environment.SharedMachine; m != nil {
		out = append(out, Caveat{Kind: CaveatSharedMachine, Title: "One machine",
			Text: fmt.Sprintf("The %d hosts were not machines of their own: they shared one machine (%s) with the orchestrator — the database servers and the load agents competed for its cores, memory and disks. These figures measure that machine, not the published hardware.",
				m.Hosts, cores(m.CPUs))})
	}
	if len(r.Overridden) > 0 {
		out = append(out, Caveat{Kind: CaveatOverridden, Title: "Overridden by the user",
			Text: overrides(r) + ". These figures are not comparable with the published ones, which are shown for reference only."})
	}
	for _, c := range r.Chosen {
		out = append(out, Caveat{Kind: CaveatChosen, Title: "Chosen, not asked for", Text: fmt.Sprintf("%s %s — %s.", c.Setting, c.Value, c.By)})
	}
	if ws := groupWarnings(r.PreflightWarnings, hostNamesOf(r.Hosts)); len(ws) > 0 {
		out = append(out, Caveat{Kind: CaveatPreflight, Title: "Preflight warnings", Text: strings.Join(ws, "; ") + "."})
	}
	out = append(out, commandLine(r))
	return out
}

// WriteCaveats renders the report's caveat block from a result alone, at
// the top of report.md: each caveat's title in bold, a command as a code
// span, its words escaped so that they render as the text they are (they
// carry user input: command lines, host names, paths).
func WriteCaveats(w io.Writer, r *Result) error {
	_, err := io.WriteString(w, caveatsMarkdown(r))
	return err
}

// caveatsMarkdown is WriteCaveats's text.
func caveatsMarkdown(r *Result) string {
	var b strings.Builder
	b.WriteString("## Read this first\n\n")
	for _, c := range CaveatsOf(r) {
		b.WriteString("- **" + mdText(c.Title) + ":** ")
		if c.Code != "" {
			b.WriteString(mdCode(c.Code) + " — ")
		}
		b.WriteString(mdText(c.Text) + "\n")
	}
	b.WriteString("\n")
	return b.String()
}

// otherDatabase is the caveat of a run whose database is not the one the
// published figures were measured on (false when it is, or is unknown).
func otherDatabase(r *Result) (Caveat, bool) {
	d, want := r.Database, r.Environment.PublishedProduct
	if d == nil || d.Product == "" || want == "" || d.Product == want {
		return Caveat{}, false
	}
	shape := fmt.Sprintf("on %d db host(s)", r.Environment.DBHosts)
	if t := d.Settings["topology"]; t != "" {
		shape = t
	}
	return Caveat{Kind: CaveatOtherDatabase, Title: "Not " + want,
		Text: fmt.Sprintf("The database was %s %s (%s) — not %s, on which the published figures beside these were measured.", d.Product, d.Version, shape, want)}, true
}

// overrides lists the overridden settings, grouped by what overrode them
// when that is recorded: "records, threads (--quick); duration (--duration)".
func overrides(r *Result) string {
	if len(r.OverriddenBy) == 0 {
		return strings.Join(r.Overridden, ", ")
	}
	var order []string
	by := map[string][]string{}
	for _, o := range r.Overridden {
		src := r.OverriddenBy[o]
		if _, seen := by[src]; !seen {
			order = append(order, src)
		}
		by[src] = append(by[src], o)
	}
	groups := make([]string, len(order))
	for i, src := range order {
		groups[i] = strings.Join(by[src], ", ")
		if src != "" {
			groups[i] += " (" + src + ")"
		}
	}
	return strings.Join(groups, "; ")
}

// cores says a machine's core count in words.
func cores(n int) string {
	switch n {
	case 0:
		return "its core count unknown"
	case 1:
		return "1 core"
	}
	return fmt.Sprintf("%d cores", n)
}

// commandLine says which tool and command made the run, and when it
// started (run.json's creation, recorded in result.json: never the time
// of rendering). Later commands on the run are in its invocations.json.
func commandLine(r *Result) Caveat {
	started := r.Created.UTC().Format("2006-01-02 15:04:05 UTC")
	c := Caveat{Kind: CaveatCommand, Title: "Command"}
	if len(r.Invocations) == 0 {
		c.Text = fmt.Sprintf("not recorded (a run made before ybbench recorded it); started %s.", started)
		return c
	}
	first := r.Invocations[0]
	c.Text = fmt.Sprintf("by %s; started %s.", first.Tool, started)
	c.Code = shellLine(first.Args)
	if len(first.Env) > 0 {
		c.Code = strings.Join(quoteAll(first.Env), " ") + " " + c.Code
	}
	return c
}

// shellLine is a command line as a user would paste it into bash: words
// that need quoting single-quoted, and a word holding a control character
// (a newline in a hostile --owner) in bash's $'…' form, so that the line
// stays one line and means what was typed.
func shellLine(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = shellWord(a)
	}
	return strings.Join(q, " ")
}

// quoteAll is shellLine's words for NAME=value variables: the value
// quoted, the name and '=' left as they are, so the line still assigns.
func quoteAll(env []string) []string {
	out := make([]string, len(env))
	for i, e := range env {
		name, value, _ := strings.Cut(e, "=")
		out[i] = name + "=" + shellWord(value)
	}
	return out
}

// shellWord is one word of shellLine.
func shellWord(a string) string {
	if !strings.ContainsFunc(a, unicode.IsControl) {
		return shellquote.Quote(a)
	}
	var b strings.Builder
	b.WriteString("$'")
	for _, r := range a {
		switch {
		case r == '\\' || r == '\'':
			b.WriteString("\\" + string(r))
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case unicode.IsControl(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteString("'")
	return b.String()
}

// hostNamesOf lists the hosts' names.
func hostNamesOf(hs []Host) []string {
	out := make([]string, len(hs))
	for i, h := range hs {
		out[i] = h.Name
	}
	return out
}

// groupWarnings merges warnings that differ only in the host they name
// ("ulimit -n … on db-1 is 1024" on four hosts of one machine) into one
// naming every host, in the order first seen.
func groupWarnings(warnings, hosts []string) []string {
	var order []string
	byTemplate := map[string][]string{}
	for _, w := range warnings {
		tmpl, host := w, ""
		for _, h := range hosts {
			if t, ok := replaceWord(w, h, "\x00"); ok {
				tmpl, host = t, h
				break
			}
		}
		if _, seen := byTemplate[tmpl]; !seen {
			order = append(order, tmpl)
			byTemplate[tmpl] = nil
		}
		if host != "" {
			byTemplate[tmpl] = append(byTemplate[tmpl], host)
		}
	}
	out := make([]string, len(order))
	for i, t := range order {
		out[i] = strings.Replace(t, "\x00", strings.Join(byTemplate[t], ", "), 1)
	}
	return out
}

// replaceWord replaces the first occurrence of word in s that stands on
// its own (not part of a longer host name such as db-10 for db-1).
func replaceWord(s, word, with string) (string, bool) {
	nameChar := func(c byte) bool {
		return c == '-' || c == '_' || c == '.' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
	}
	for from := 0; ; {
		i := strings.Index(s[from:], word)
		if i < 0 || word == "" {
			return s, false
		}
		i += from
		end := i + len(word)
		// A trailing '.' ends a sentence, not a name.
		before := i == 0 || !nameChar(s[i-1])
		after := end == len(s) || !nameChar(s[end]) || s[end] == '.' && (end+1 == len(s) || s[end+1] == ' ')
		if before && after {
			return s[:i] + with + s[end:], true
		}
		from = i + 1
	}
}
