package provision

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ybbench/ybbench/internal/exitcode"
)

func TestSecret(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "secrets")
	pw, file, err := Secret(dir, "db-password")
	if err != nil || !generatedSecret.MatchString(pw) || file != filepath.Join(dir, "db-password") {
		t.Fatalf("Secret: %q %q %v", pw, file, err)
	}
	if st, _ := os.Stat(file); st.Mode().Perm() != 0o600 {
		t.Errorf("file mode %v", st.Mode().Perm())
	}
	if st, _ := os.Stat(dir); st.Mode().Perm() != 0o700 {
		t.Errorf("directory mode %v", st.Mode().Perm())
	}
	again, _, err := Secret(dir, "db-password")
	if err != nil || again != pw {
		t.Errorf("the second call made another password: %q vs %q (%v)", again, pw, err)
	}
	other, _, _ := Secret(dir, "other")
	if other == pw {
		t.Error("two secrets are the same")
	}
	os.Chmod(file, 0o644)
	if _, _, err := Secret(dir, "db-password"); exitcode.Of(err) != exitcode.Config || !strings.Contains(err.Error(), "readable by others") {
		t.Errorf("a loose file: %v", err)
	}
	os.WriteFile(filepath.Join(dir, "bad"), []byte("x'; DROP ROLE\n"), 0o600)
	if _, _, err := Secret(dir, "bad"); exitcode.Of(err) != exitcode.Config {
		t.Errorf("a file ybbench did not write: %v", err)
	}
	if _, _, err := Secret("", "x"); exitcode.Of(err) != exitcode.Config {
		t.Errorf("no directory: %v", err)
	}
}
