package pipeline

import (
	"fmt"
	"strings"
)

// WriteSettingsTable writes the settings and presets as docs/settings.md's
// Markdown table.
func WriteSettingsTable(b *strings.Builder) {
	b.WriteString("| setting (file · flag · variable) | type | default | what | valid |\n|---|---|---|---|---|\n")
	cell := func(s string) string { return strings.ReplaceAll(s, "|", `\|`) }
	for _, st := range settings {
		fmt.Fprintf(b, "| `%s` · `--%s` · `%s` | %s | %s | %s | %s |\n", st.Name, FlagName(st.Name), EnvName(st.Name),
			cell(st.Type), cell(st.DefaultText()), cell(st.Usage), cell(st.Valid))
	}
	b.WriteString("\n| preset flag | sets |\n|---|---|\n")
	for _, p := range presets {
		fmt.Fprintf(b, "| `--%s` | %s |\n", p.Name, cell(p.FlagUsage()))
	}
}
