package ssh

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	xssh "golang.org/x/crypto/ssh"
)

func TestGenerateKey(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "runs", "r1", "ssh")
	line, priv, err := GenerateKey(dir)
	if err != nil {
		t.Fatal(err)
	}
	if priv != filepath.Join(dir, PrivateKeyFile) {
		t.Fatalf("private key path %s", priv)
	}
	st, err := os.Stat(priv)
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("private key: %v mode %v", err, st.Mode().Perm())
	}
	if st, _ := os.Stat(dir); st.Mode().Perm() != 0o700 {
		t.Fatalf("dir mode %v", st.Mode().Perm())
	}
	b, _ := os.ReadFile(priv)
	if !strings.HasPrefix(string(b), "-----BEGIN OPENSSH PRIVATE KEY-----") {
		t.Fatalf("not OpenSSH format:\n%s", b)
	}
	signer, err := xssh.ParsePrivateKey(b)
	if err != nil {
		t.Fatal(err)
	}
	if signer.PublicKey().Type() != xssh.KeyAlgoED25519 {
		t.Fatalf("key type %s", signer.PublicKey().Type())
	}
	pub, comment, _, _, err := xssh.ParseAuthorizedKey([]byte(line))
	if err != nil {
		t.Fatal(err)
	}
	if string(pub.Marshal()) != string(signer.PublicKey().Marshal()) || !strings.Contains(comment, "ybbench") {
		t.Fatalf("authorized line %q does not match the private key", line)
	}
	pubFile, _ := os.ReadFile(filepath.Join(dir, PublicKeyFile))
	if strings.TrimSpace(string(pubFile)) != line {
		t.Fatalf(".pub %q != %q", pubFile, line)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 2 {
		t.Fatalf("%d files in the key dir, want 2 (no temporaries)", len(ents))
	}

	// A resumed run keeps its key.
	line2, priv2, err := GenerateKey(dir)
	if err != nil || priv2 != priv || strings.Fields(line2)[1] != strings.Fields(line)[1] {
		t.Fatalf("second call: %v %s %q", err, priv2, line2)
	}
	// Another run gets another key.
	line3, _, err := GenerateKey(filepath.Join(t.TempDir(), "ssh"))
	if err != nil || strings.Fields(line3)[1] == strings.Fields(line)[1] {
		t.Fatalf("another run: %v, same key %v", err, line3 == line)
	}
	// A key others can read is refused, not reused.
	if err := os.Chmod(priv, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := GenerateKey(dir); err == nil || !strings.Contains(err.Error(), "0600") {
		t.Fatalf("world-readable key: %v", err)
	}
}
