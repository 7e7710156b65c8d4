package provision

import (
	"testing"
)

func TestRenderRefusesMissingKeys(t *testing.T) {
	if _, err := RenderWith("t", "echo {{q .Nope}}", map[string]string{}, nil); err == nil {
		t.Error("want an error for a missing key")
	}
	got, err := RenderWith("t", "echo {{q .Dir}} {{qjoin \" \" .List}}", map[string]any{"Dir": "a b", "List": []string{"x", "y z"}}, nil)
	if err != nil || got != "echo 'a b' x 'y z'" {
		t.Errorf("%q %v", got, err)
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
