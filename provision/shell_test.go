package provision

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

func TestRenderRefusesMissingKeys(t *testing.T) {
	if _, err := RenderWith("t", "echo {{q .Nope}}", map[string]string{}, nil); err == nil {
		t.Error("want an error for a missing key")
	}
	got, err := RenderWith("t", "echo {{q .Dir}} {{qjoin \" \" .List}}", map[string]any{"Dir": "a b", "List": []string{"x", "y z"}}, nil)
	if err != nil || got != "echo 'a b' x 'y z'" {
		t.Errorf("%q %v", got, err)
	}
}

// A QuoteAll command line splits back into exactly its arguments.
func TestQuoteAllSplitsBackIntoItsArguments(t *testing.T) {
	args := []string{"/runs/my run/bin/hosts.sh", "", "it's", "$(id)", "a\nb"}
	out, err := exec.Command("bash", "-c", `printf '<%s>' `+QuoteAll(args)).Output()
	if err != nil {
		t.Fatal(err)
	}
	if want := "</runs/my run/bin/hosts.sh><><it's><$(id)><a\nb>"; string(out) != want {
		t.Errorf("got %q, want %q", out, want)
	}
}

// Both runners check a step's environment with CheckEnv: identifiers only,
// no NUL in a value.
func TestCheckEnv(t *testing.T) {
	if err := CheckEnv(map[string]string{"YB_DB_PASSWORD": "x y'z", "_a1": ""}); err != nil {
		t.Errorf("sound environment refused: %v", err)
	}
	for _, env := range []map[string]string{{"1A": "x"}, {"A-B": "x"}, {"": "x"}, {"A=B": "x"}, {"A": "x\x00y"}} {
		if err := CheckEnv(env); err == nil {
			t.Errorf("%q accepted", env)
		}
	}
}
