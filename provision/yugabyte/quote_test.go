package yugabyte

import (
	"os/exec"
	"testing"
)

func TestShellQuote(t *testing.T) {
	cases := []struct{ in, want string }{
		{"", "''"},
		{"plain", "plain"},
		{"/opt/yb/base-1", "/opt/yb/base-1"},
		{"--fs_data_dirs=/d0,/d1", "--fs_data_dirs=/d0,/d1"},
		{"127.0.0.1:7100", "127.0.0.1:7100"},
		{"[::1]:7100", "'[::1]:7100'"},
		{"a b", "'a b'"},
		{"it's", `'it'\''s'`},
		{"$(touch /tmp/x)", "'$(touch /tmp/x)'"},
		{"~root", "'~root'"},
		{"a\nb", "'a\nb'"},
		{"*", "'*'"},
	}
	for _, c := range cases {
		if got := shellQuote(c.in); got != c.want {
			t.Errorf("shellQuote(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// TestShellQuoteRoundTrip has bash read quoted words back: each must come
// out as exactly the string that went in, whatever it holds.
func TestShellQuoteRoundTrip(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	words := []string{"", "plain", "a b", "it's", `"double"`, "$(echo pwned)", "`echo pwned`", "$HOME",
		"back\\slash", "new\nline", "tab\there", "*?[a]", "~", "!bang", "; rm -rf /", "'", "''", "\\'", "é ü 日本"}
	for _, w := range words {
		out, err := exec.Command("bash", "-c", "printf '%s' "+shellQuote(w)).Output()
		if err != nil {
			t.Fatalf("bash on %q: %v", w, err)
		}
		if string(out) != w {
			t.Errorf("round trip of %q gave %q", w, out)
		}
	}
}
