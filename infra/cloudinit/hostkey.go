package cloudinit

import (
	"crypto/ed25519"
	"encoding/pem"
	"fmt"
	"io"
	"strings"

	"golang.org/x/crypto/ssh"
)

// HostKey is an SSH host key ybbench makes for one cloud host before the
// host exists. Its private half goes to the host in the user data
// (cloud-init's ssh_keys); its public half is what cluster.json pins, so
// the first connection is already checked and nothing is trusted on first
// use.
type HostKey struct {
	// Private is the key in OpenSSH's PEM format, as sshd reads it from
	// /etc/ssh/ssh_host_ed25519_key.
	Private string
	// Public is the public half as an authorized_keys line without a
	// comment ("ssh-ed25519 AAAA…"), the form infra.SSH.HostKey holds.
	Public string
}

// GenerateHostKey makes an ed25519 host key from the randomness in r
// (crypto/rand.Reader outside tests). One key type is enough: the
// orchestrator is the only client and pins exactly this key, and the user
// data tells cloud-init to generate no other.
func GenerateHostKey(r io.Reader) (HostKey, error) {
	pub, priv, err := ed25519.GenerateKey(r)
	if err != nil {
		return HostKey{}, fmt.Errorf("host key: generate ed25519: %w", err)
	}
	block, err := ssh.MarshalPrivateKey(priv, "")
	if err != nil {
		return HostKey{}, fmt.Errorf("host key: encode private half: %w", err)
	}
	sshPub, err := ssh.NewPublicKey(pub)
	if err != nil {
		return HostKey{}, fmt.Errorf("host key: encode public half: %w", err)
	}
	return HostKey{
		Private: string(pem.EncodeToMemory(block)),
		Public:  strings.TrimSpace(string(ssh.MarshalAuthorizedKey(sshPub))),
	}, nil
}

// check reports whether the two halves belong together, so that user
// data never installs a key other than the one the run pins.
func (k HostKey) check() error {
	if k.Private == "" || k.Public == "" {
		return fmt.Errorf("host key: private or public half missing")
	}
	signer, err := ssh.ParsePrivateKey([]byte(k.Private))
	if err != nil {
		return fmt.Errorf("host key: private half: %w", err)
	}
	if signer.PublicKey().Type() != ssh.KeyAlgoED25519 {
		return fmt.Errorf("host key: type %s, want %s", signer.PublicKey().Type(), ssh.KeyAlgoED25519)
	}
	pub, _, _, rest, err := ssh.ParseAuthorizedKey([]byte(k.Public))
	if err != nil {
		return fmt.Errorf("host key: public half: %w", err)
	}
	if len(strings.TrimSpace(string(rest))) > 0 {
		return fmt.Errorf("host key: public half holds more than one key")
	}
	if string(pub.Marshal()) != string(signer.PublicKey().Marshal()) {
		return fmt.Errorf("host key: public half %s does not belong to the private half (%s)",
			ssh.FingerprintSHA256(pub), ssh.FingerprintSHA256(signer.PublicKey()))
	}
	return nil
}
