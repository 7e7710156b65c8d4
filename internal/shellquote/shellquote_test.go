package shellquote

import (
	"os/exec"
	"testing"
)

// Quoted values survive a real shell unchanged, whatever they contain.
func TestQuoteRoundTripsThroughBash(t *testing.T) {
	for _, s := range []string{"", "plain", "with space", "it's", `a"b`, "$(rm -rf /)", "`x`", "a\nb", "*", "~user", "x;y|z&",
		"$HOME", "back\\slash", "tab\there", "*?[a]", "~", "!bang", "'", "''", "\\'", "é ü 日本", "[::1]:7100"} {
		out, err := exec.Command("bash", "-c", "printf %s "+Quote(s)).Output()
		if err != nil {
			t.Fatal(err)
		}
		if string(out) != s {
			t.Errorf("%q came back as %q", s, out)
		}
	}
}

// A Join command line splits back into exactly its arguments.
func TestJoinSplitsBackIntoItsArguments(t *testing.T) {
	args := []string{"/runs/my run/bin/hosts.sh", "", "it's", "$(id)", "a\nb"}
	out, err := exec.Command("bash", "-c", `printf '<%s>' `+Join(args)).Output()
	if err != nil {
		t.Fatal(err)
	}
	if want := "</runs/my run/bin/hosts.sh><><it's><$(id)><a\nb>"; string(out) != want {
		t.Errorf("got %q, want %q", out, want)
	}
}
