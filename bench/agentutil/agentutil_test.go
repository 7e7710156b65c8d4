package agentutil

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReadSecretFileRefusesReadableFiles(t *testing.T) {
	dir := t.TempDir()
	priv, pub := filepath.Join(dir, "pw"), filepath.Join(dir, "pw2")
	os.WriteFile(priv, []byte("s3cret\n"), 0o600)
	os.WriteFile(pub, []byte("s3cret\n"), 0o644)
	if pw, err := ReadSecretFile(priv); err != nil || pw != "s3cret" {
		t.Errorf("%q %v", pw, err)
	}
	if _, err := ReadSecretFile(pub); err == nil || !strings.Contains(err.Error(), "readable by others") {
		t.Errorf("a 0644 file accepted: %v", err)
	}
}
