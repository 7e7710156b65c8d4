package ssh

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	xssh "golang.org/x/crypto/ssh"

	"github.com/ybbench/ybbench/internal/atomicfile"
)

// Key file names inside a run's key directory.
const (
	PrivateKeyFile = "id_ed25519"
	PublicKeyFile  = "id_ed25519.pub"
)

// GenerateKey makes the run's SSH key in dir (runs/<id>/ssh): an ed25519
// key, the private half in OpenSSH format at dir/id_ed25519 (mode 0600,
// dir 0700), the public half at dir/id_ed25519.pub. It returns the public
// key as an authorized_keys line and the private key's path.
//
// The directory belongs to one run, so its key is fresh for that run; when
// the key is already there (a resumed run) GenerateKey returns it instead
// of replacing the key the hosts already trust.
func GenerateKey(dir string) (authorizedKey, privateKeyPath string, err error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", "", fmt.Errorf("ssh key: %w", err)
	}
	if err := os.MkdirAll(abs, 0o700); err != nil {
		return "", "", fmt.Errorf("ssh key: %w", err)
	}
	if err := os.Chmod(abs, 0o700); err != nil {
		return "", "", fmt.Errorf("ssh key: %w", err)
	}
	privPath := filepath.Join(abs, PrivateKeyFile)
	if line, err := existingKey(privPath); err == nil {
		return line, privPath, nil
	} else if !errors.Is(err, fs.ErrNotExist) {
		return "", "", err
	}

	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return "", "", fmt.Errorf("ssh key: %w", err)
	}
	comment := "ybbench:" + abs
	block, err := xssh.MarshalPrivateKey(priv, comment)
	if err != nil {
		return "", "", fmt.Errorf("ssh key: %w", err)
	}
	sshPub, err := xssh.NewPublicKey(pub)
	if err != nil {
		return "", "", fmt.Errorf("ssh key: %w", err)
	}
	line := strings.TrimSpace(string(xssh.MarshalAuthorizedKey(sshPub))) + " " + comment
	if err := atomicfile.Write(privPath, pem.EncodeToMemory(block), 0o600); err != nil {
		return "", "", fmt.Errorf("ssh key: %w", err)
	}
	if err := atomicfile.Write(filepath.Join(abs, PublicKeyFile), []byte(line+"\n"), 0o644); err != nil {
		return "", "", fmt.Errorf("ssh key: %w", err)
	}
	return line, privPath, nil
}

// existingKey returns the authorized_keys line of the private key at path,
// refusing a key file that others can read.
func existingKey(path string) (string, error) {
	st, err := os.Stat(path)
	if err != nil {
		return "", err
	}
	if st.Mode().Perm()&0o077 != 0 {
		return "", fmt.Errorf("ssh key %s: mode %v, want 0600", path, st.Mode().Perm())
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("ssh key: %w", err)
	}
	signer, err := xssh.ParsePrivateKey(b)
	if err != nil {
		return "", fmt.Errorf("ssh key %s: %w", path, err)
	}
	return strings.TrimSpace(string(xssh.MarshalAuthorizedKey(signer.PublicKey()))) + " ybbench:" + filepath.Dir(path), nil
}
