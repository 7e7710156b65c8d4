package pipeline

import (
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ybbench/ybbench/internal/golden"
	"github.com/ybbench/ybbench/profiles"
)

const (
	spellingsBegin = "<!-- spellings table: written by go test ./pipeline -run TestREADMESpellingsTable -update -->\n"
	spellingsEnd   = "<!-- end of spellings table -->\n"
)

// The README's spellings table is the rendering of the settings and of the
// agents' command lines as a run builds them (-update rewrites it).
func TestREADMESpellingsTable(t *testing.T) {
	const readme = "../docs/settings.md"
	b, err := os.ReadFile(readme)
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	i, j := strings.Index(text, spellingsBegin), strings.Index(text, spellingsEnd)
	if i < 0 || j < i {
		t.Fatalf("docs/settings.md lacks the spellings table's markers %q … %q", spellingsBegin, spellingsEnd)
	}
	var want strings.Builder
	if err := WriteSpellingsTable(&want); err != nil {
		t.Fatal(err)
	}
	got := text[i+len(spellingsBegin) : j]
	if got == want.String() {
		return
	}
	if golden.Updating() {
		if err := os.WriteFile(readme, []byte(text[:i+len(spellingsBegin)]+want.String()+text[j:]), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("docs/settings.md's spellings table is not current (go test ./pipeline -run TestREADMESpellingsTable -update):\n--- docs/settings.md\n%s\n--- table\n%s", got, want.String())
}

// Independent facts about the table, from the reference tools' own
// spellings: what the issue asked the table to show.
func TestSpellingsKnownRows(t *testing.T) {
	rows, err := spellingRows()
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]spellingRow{}
	for _, r := range rows {
		byName[r.setting] = r
	}
	if len(rows) != len(Settings()) {
		t.Errorf("%d rows for %d settings", len(rows), len(Settings()))
	}
	for _, c := range []struct{ setting, family, want string }{
		{"threads", "ycsb", "`-p threadcount=<n>` (run)"},
		{"load_threads", "ycsb", "`-p threadcount=<n>` (load)"},
		{"threads", "sysbench", "`--threads=<n>` (run)"},
		{"threads", "kv", "`--num_threads_write <n>` (write-heavy, batch-write), `--num_threads_read <n>` (read-heavy)"},
		{"duration", "kv", "`--run_time <seconds>`"},
		{"warmup", "sysbench", "`--warmup-time=<seconds>` (run)"},
		{"warmup", "ycsb", "refused (exit 2)"},
		{"records", "sysbench", "`--table-size=<n>`"},
		{"subnet", "ycsb", ""},
	} {
		if got := byName[c.setting].agent[c.family]; got != c.want {
			t.Errorf("%s on %s: %q, want %q", c.setting, c.family, got, c.want)
		}
	}
}

// What the notes say is on the agents' command lines is there, in every
// built-in profile of the family; agent_properties reach YCSB's agents
// (load and run) and no other family's, as the table says. (They are
// accepted there today, not refused: when validation refuses them, this
// test and the table's note change together.)
func TestSpellingsNotesOnCommandLines(t *testing.T) {
	profs, err := profiles.All()
	if err != nil {
		t.Fatal(err)
	}
	for setting, fams := range agentNotes {
		for fam, note := range fams {
			for _, p := range profs {
				if p.Family != fam {
					continue
				}
				invs, err := agentArgs(p.Name, "", "")
				if err != nil {
					t.Fatal(err)
				}
				for _, tok := range note.tokens {
					found := false
					for _, inv := range invs {
						found = found || strings.Contains(strings.Join(inv.args, " "), tok)
					}
					if !found {
						t.Errorf("%s on %s: %q is on no agent command line of profile %s", setting, fam, tok, p.Name)
					}
				}
			}
		}
	}
	for _, p := range profs {
		invs, err := agentArgs(p.Name, "agent_properties", "probe.name=probe-value")
		switch {
		case p.Family == "ycsb" && err != nil:
			t.Errorf("%s: agent_properties: %v", p.Name, err)
		case p.Family == "ycsb":
			for _, inv := range invs {
				has := strings.Contains(strings.Join(inv.args, " "), "-p probe.name=probe-value")
				if has != (inv.phase == "load" || inv.phase == "run") {
					t.Errorf("%s %s: -p probe.name=probe-value there %v", p.Name, inv.key(), has)
				}
			}
		case err == nil:
			t.Errorf("%s (%s): agent_properties accepted (%d invocations): the table says they are refused", p.Name, p.Family, len(invs))
		}
	}
}

// A numeric setting the table says the agents do not see changes no
// agent's command line; each parameter setting it lists changes one.
func TestSpellingsNothingHidden(t *testing.T) {
	profs, err := profiles.All()
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range Settings() {
		if st.Type != "integer" && st.Type != "duration" {
			continue
		}
		listed := st.param != nil
		var value string
		switch {
		case listed:
			value = "5"
			if st.Type == "duration" {
				value = "5s"
			}
		case st.Type == "integer":
			n, err := strconv.Atoi(st.Default)
			if err != nil {
				t.Fatalf("%s: default %q", st.Name, st.Default)
			}
			value = strconv.Itoa(n + 1)
		default:
			d, err := time.ParseDuration(st.Default)
			if err != nil {
				t.Fatalf("%s: default %q", st.Name, st.Default)
			}
			value = (d + time.Second).String()
		}
		changes := 0
		for _, p := range profs {
			base, err := agentArgs(p.Name, "", "")
			if err != nil {
				t.Fatal(err)
			}
			set, err := agentArgs(p.Name, st.Name, value)
			if err != nil {
				continue // refused for this profile: the table says so
			}
			for i, inv := range base {
				if !slices.Equal(inv.args, set[i].args) {
					changes++
				}
			}
		}
		if _, noted := agentNotes[st.Name]; noted {
			continue
		}
		if listed && changes == 0 {
			t.Errorf("%s is listed as a parameter but changes no agent command line", st.Name)
		}
		if !listed && changes > 0 {
			t.Errorf("%s=%s changes %d agent command lines, but the spellings table shows nothing for it", st.Name, value, changes)
		}
	}
}
