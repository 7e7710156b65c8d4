package collect

import (
	"fmt"
	"io"
	"strings"
)

// WriteCaveats renders the report's caveat block from a result alone:
// what a reader must know before reading a figure, at the top, in words.
// It says when the database was not the one the published figures were
// measured on, when the hosts shared one machine (and its cores), what
// the user overrode and what a default chose, the preflight's warnings,
// and the tool and exact command line that made the run.
func WriteCaveats(w io.Writer, r *Result) error {
	_, err := io.WriteString(w, caveats(r))
	return err
}

// caveats is WriteCaveats's text.
func caveats(r *Result) string {
	var items []string
	add := func(format string, a ...any) { items = append(items, fmt.Sprintf(format, a...)) }
	if s := otherDatabase(r); s != "" {
		add("%s", s)
	}
	if m := r.Environment.SharedMachine; m != nil {
		add("**One machine.** The %d hosts were not machines of their own: they shared one machine (%s) with the orchestrator — the database servers and the load agents competed for its cores, memory and disks. These figures measure that machine, not the published hardware.",
			m.Hosts, cores(m.CPUs))
	}
	if len(r.Overridden) > 0 {
		add("**Overridden by the user:** %s. These figures are not comparable with the published ones, which are shown for reference only.", overrides(r))
	}
	for _, c := range r.Chosen {
		add("**Chosen, not asked for:** %s %s — %s.", c.Setting, c.Value, c.By)
	}
	if ws := groupWarnings(r.PreflightWarnings, hostNamesOf(r.Hosts)); len(ws) > 0 {
		add("**Preflight warnings:** %s.", strings.Join(ws, "; "))
	}
	add("%s", commandLine(r))
	var b strings.Builder
	b.WriteString("## Read this first\n\n")
	for _, it := range items {
		b.WriteString("- " + it + "\n")
	}
	b.WriteString("\n")
	return b.String()
}

// otherDatabase is the caveat of a run whose database is not the one the
// published figures were measured on ("" when it is, or is unknown).
func otherDatabase(r *Result) string {
	d, want := r.Database, r.Environment.PublishedProduct
	if d == nil || d.Product == "" || want == "" || d.Product == want {
		return ""
	}
	shape := fmt.Sprintf("on %d db host(s)", r.Environment.DBHosts)
	if t := d.Settings["topology"]; t != "" {
		shape = t
	}
	return fmt.Sprintf("**Not %s.** The database was %s %s (%s) — not %s, on which the published figures beside these were measured.",
		want, d.Product, d.Version, shape, want)
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
func commandLine(r *Result) string {
	started := r.Created.UTC().Format("2006-01-02 15:04:05 UTC")
	if len(r.Invocations) == 0 {
		return fmt.Sprintf("**Command:** not recorded (a run made before ybbench recorded it); started %s.", started)
	}
	first := r.Invocations[0]
	s := fmt.Sprintf("**Command:** `%s`", shellLine(first.Args))
	if len(first.Env) > 0 {
		s += fmt.Sprintf(" with `%s`", strings.Join(first.Env, " "))
	}
	s += fmt.Sprintf(", by %s; started %s.", first.Tool, started)
	return s
}

// shellLine is a command line as a user would paste it into a shell:
// words that need quoting single-quoted.
func shellLine(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		if a != "" && strings.Trim(a, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./=:,@%+") == "" {
			q[i] = a
			continue
		}
		q[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	return strings.Join(q, " ")
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
