//go:build integration

package ssh_test

import (
	"crypto/sha256"
	"encoding/hex"
	"testing"

	xssh "golang.org/x/crypto/ssh"
)

func fingerprint(t *testing.T, authorized string) string {
	t.Helper()
	k, _, _, _, err := xssh.ParseAuthorizedKey([]byte(authorized))
	if err != nil {
		t.Fatal(err)
	}
	return xssh.FingerprintSHA256(k)
}

func sha256Hex(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}
