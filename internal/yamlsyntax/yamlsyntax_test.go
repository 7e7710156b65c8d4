package yamlsyntax

import (
	"testing"

	"gopkg.in/yaml.v3"
)

// The parser's own words become a place and a remedy.
func TestExplain(t *testing.T) {
	for _, c := range []struct{ text, want string }{
		{"a: 1\n\tb: 2\n", "f.yaml:2:1: tabs are not allowed in YAML; use spaces"},
		{"a:\n  - x\n  \t- y\n", "f.yaml:3:3: tabs are not allowed in YAML; use spaces"},
		{"a: [\n", "f.yaml:1: did not find expected node content"},
		{"a: b: c\n", "f.yaml: mapping values are not allowed in this context"},
	} {
		var n yaml.Node
		err := yaml.Unmarshal([]byte(c.text), &n)
		if err == nil {
			t.Fatalf("%q parsed", c.text)
		}
		if got := Explain("f.yaml", []byte(c.text), err).Error(); got != c.want {
			t.Errorf("%q: %q, want %q", c.text, got, c.want)
		}
	}
}
