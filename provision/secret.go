package provision

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/ybbench/ybbench/internal/exitcode"
)

// generatedSecret is what Secret makes: hex, so it is safe in any
// configuration file, statement or shell word it must pass through.
var generatedSecret = regexp.MustCompile(`^[0-9a-f]{32,128}$`)

// Secret returns the password kept in dir/name on the orchestrator, or
// generates one (144 random bits as hex) into a new 0600 file in dir
// (made 0700): a second Install of the same run finds the one its
// database already has. A file readable by others, or one whose content
// Secret would not have written, is refused (exit 2).
func Secret(dir, name string) (password, file string, err error) {
	if dir == "" {
		return "", "", exitcode.Errorf(exitcode.Config, "no secrets directory for the generated credentials (or turn authentication off)")
	}
	file = filepath.Join(dir, name)
	if st, err := os.Stat(file); err == nil {
		if st.Mode().Perm()&0o077 != 0 {
			return "", "", exitcode.Errorf(exitcode.Config, "%s is readable by others (mode %v): a password file must be 0600", file, st.Mode().Perm())
		}
		b, err := os.ReadFile(file)
		if err != nil {
			return "", "", fmt.Errorf("read %s: %w", file, err)
		}
		pw := strings.TrimSpace(string(b))
		if !generatedSecret.MatchString(pw) {
			return "", "", exitcode.Errorf(exitcode.Config, "%s does not hold a password ybbench generated (32 to 128 hex digits)", file)
		}
		return pw, file, nil
	} else if !errors.Is(err, fs.ErrNotExist) {
		return "", "", fmt.Errorf("password file: %w", err)
	}
	raw := make([]byte, 18)
	if _, err := rand.Read(raw); err != nil {
		return "", "", fmt.Errorf("generate a password: %w", err)
	}
	pw := hex.EncodeToString(raw)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", "", fmt.Errorf("secrets directory: %w", err)
	}
	w, err := os.OpenFile(file, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return "", "", fmt.Errorf("password file: %w", err)
	}
	_, werr := w.WriteString(pw + "\n")
	if cerr := w.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		os.Remove(file)
		return "", "", fmt.Errorf("write %s: %w", file, werr)
	}
	return pw, file, nil
}
