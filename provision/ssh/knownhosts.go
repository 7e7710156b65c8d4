package ssh

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"

	xssh "golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"
)

// HostKeyChangedError is a host that offered a key other than the one
// pinned for the run. It is never retried: either the machine was replaced
// behind our back or someone is in the middle.
type HostKeyChangedError struct {
	Host string // the host's name in the cluster
	Addr string // the address dialed
	// Pinned is the SHA256 fingerprint of the pinned key(s), Offered the
	// one the host presented (or why none could be compared).
	Pinned, Offered string
	// Source says where the pin comes from: the known-hosts file of the
	// run, or the cluster's host record.
	Source string
}

func (e *HostKeyChangedError) Error() string {
	fix := "if the machine was rebuilt on purpose, remove its line from " + e.Source
	if e.Source == fixedPinSource {
		fix = "if the machine was rebuilt on purpose, update ssh.host_key in the cluster's record"
	} else if strings.HasPrefix(e.Source, "ssh.host_key") {
		fix = "if the machine was rebuilt on purpose, update " + e.Source
	}
	return fmt.Sprintf("host key of %s (%s) changed: pinned %s, offered %s; refusing to connect (%s)",
		e.Host, e.Addr, e.Pinned, e.Offered, fix)
}

// KnownHosts pins host keys for a run: the first key a host offers is
// recorded in the run's known-hosts file (OpenSSH format, one line per
// host, address as ssh writes it: "10.0.0.1" or "[10.0.0.1]:2222") and
// every later connection must offer the same key. Safe for concurrent use.
type KnownHosts struct {
	path string
	mu   sync.Mutex
	keys map[string][]xssh.PublicKey // by knownhosts.Normalize(addr)
}

// LoadKnownHosts reads the run's known-hosts file at path; a missing file
// is an empty one (created, with its directory, at the first pin). Only
// plain lines are accepted: no markers, no hashed names, since the file
// is written by ybbench for one run.
func LoadKnownHosts(path string) (*KnownHosts, error) {
	k := &KnownHosts{path: path, keys: map[string][]xssh.PublicKey{}}
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return k, nil
	}
	if err != nil {
		return nil, fmt.Errorf("known hosts: %w", err)
	}
	if err := k.parse(b); err != nil {
		return nil, fmt.Errorf("known hosts %s: %w", path, err)
	}
	return k, nil
}

func (k *KnownHosts) parse(b []byte) error {
	for i, raw := range bytes.Split(b, []byte("\n")) {
		line := bytes.TrimSpace(raw)
		if len(line) == 0 || line[0] == '#' {
			continue
		}
		marker, hosts, key, _, _, err := xssh.ParseKnownHosts(line)
		if err != nil {
			return fmt.Errorf("line %d: %w", i+1, err)
		}
		if marker != "" {
			return fmt.Errorf("line %d: marker @%s is not supported in a run's known-hosts file", i+1, marker)
		}
		for _, h := range hosts {
			if strings.HasPrefix(h, "|") {
				return fmt.Errorf("line %d: hashed host names are not supported in a run's known-hosts file", i+1)
			}
			n := knownhosts.Normalize(h)
			k.keys[n] = append(k.keys[n], key)
		}
	}
	return nil
}

// Path is the file the pins are kept in.
func (k *KnownHosts) Path() string { return k.path }

// Keys returns the keys pinned for addr (host:port).
func (k *KnownHosts) Keys(addr string) []xssh.PublicKey {
	k.mu.Lock()
	defer k.mu.Unlock()
	return append([]xssh.PublicKey(nil), k.keys[knownhosts.Normalize(addr)]...)
}

// Check accepts key for addr if it is pinned, pins it if addr has no key
// yet (appending a line to the file before accepting it), and otherwise
// returns a *HostKeyChangedError. host names the host in messages.
func (k *KnownHosts) Check(host, addr string, key xssh.PublicKey) (pinned bool, err error) {
	n := knownhosts.Normalize(addr)
	k.mu.Lock()
	defer k.mu.Unlock()
	if have := k.keys[n]; len(have) > 0 {
		if keyIn(key, have) {
			return false, nil
		}
		return false, &HostKeyChangedError{Host: host, Addr: addr, Pinned: fingerprints(have), Offered: xssh.FingerprintSHA256(key), Source: k.path}
	}
	if err := k.appendLine(knownhosts.Line([]string{n}, key)); err != nil {
		return false, err
	}
	k.keys[n] = []xssh.PublicKey{key}
	return true, nil
}

func (k *KnownHosts) appendLine(line string) error {
	if err := os.MkdirAll(filepath.Dir(k.path), 0o700); err != nil {
		return fmt.Errorf("known hosts: %w", err)
	}
	f, err := os.OpenFile(k.path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("known hosts: %w", err)
	}
	if _, err := f.WriteString(line + "\n"); err != nil {
		f.Close()
		return fmt.Errorf("known hosts: %w", err)
	}
	// The pin must be on disk before the connection is trusted: a resumed
	// run has to find it.
	if err := f.Sync(); err != nil {
		f.Close()
		return fmt.Errorf("known hosts: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("known hosts: %w", err)
	}
	return nil
}

func keyIn(key xssh.PublicKey, keys []xssh.PublicKey) bool {
	m := key.Marshal()
	for _, k := range keys {
		if bytes.Equal(k.Marshal(), m) {
			return true
		}
	}
	return false
}

func fingerprints(keys []xssh.PublicKey) string {
	fps := make([]string, len(keys))
	for i, k := range keys {
		fps[i] = xssh.FingerprintSHA256(k)
	}
	return strings.Join(fps, ",")
}

// hostKeyAlgorithms are the algorithms that can verify keys: offering only
// these makes a host with several host keys present the pinned one.
func hostKeyAlgorithms(keys []xssh.PublicKey) []string {
	var out []string
	seen := map[string]bool{}
	add := func(a ...string) {
		for _, x := range a {
			if !seen[x] {
				seen[x] = true
				out = append(out, x)
			}
		}
	}
	for _, k := range keys {
		switch k.Type() {
		case xssh.KeyAlgoRSA:
			add(xssh.KeyAlgoRSASHA512, xssh.KeyAlgoRSASHA256, xssh.KeyAlgoRSA)
		default:
			add(k.Type())
		}
	}
	return out
}

// hostPin is the pinning policy for one host: the cluster's recorded key
// when it has one (Host.SSH.HostKey), else the run's known-hosts file.
type hostPin struct {
	host, addr string
	fixed      []xssh.PublicKey // from the host record; nil: use kh
	fixedFrom  string           // where the record's key came from (Host.SSH.HostKeySource)
	kh         *KnownHosts
}

// keys returns what is pinned now (empty before first contact).
func (p hostPin) keys() []xssh.PublicKey {
	if p.fixed != nil {
		return p.fixed
	}
	return p.kh.Keys(p.addr)
}

// source names where the pin comes from, for messages.
func (p hostPin) source() string {
	if p.fixed != nil {
		if p.fixedFrom != "" {
			return p.fixedFrom
		}
		return fixedPinSource
	}
	return p.kh.Path()
}

// fixedPinSource names a pin taken from the cluster's host record.
const fixedPinSource = "the cluster's host record (ssh.host_key)"

// callback checks the offered key; newPin reports a key pinned at this
// contact.
func (p hostPin) callback(newPin func(xssh.PublicKey)) xssh.HostKeyCallback {
	return func(_ string, _ net.Addr, key xssh.PublicKey) error {
		if p.fixed != nil {
			if keyIn(key, p.fixed) {
				return nil
			}
			return &HostKeyChangedError{Host: p.host, Addr: p.addr, Pinned: fingerprints(p.fixed), Offered: xssh.FingerprintSHA256(key), Source: p.source()}
		}
		pinned, err := p.kh.Check(p.host, p.addr, key)
		if err == nil && pinned && newPin != nil {
			newPin(key)
		}
		return err
	}
}

// parseHostKey reads Host.SSH.HostKey: one key or more, authorized_keys
// format, one a line.
func parseHostKey(s string) ([]xssh.PublicKey, error) {
	var keys []xssh.PublicKey
	for rest := []byte(s); len(bytes.TrimSpace(rest)) > 0; {
		key, _, _, r, err := xssh.ParseAuthorizedKey(rest)
		if err != nil {
			return nil, fmt.Errorf("ssh.host_key: %w", err)
		}
		keys = append(keys, key)
		rest = r
	}
	if len(keys) == 0 {
		return nil, errors.New("ssh.host_key: no key")
	}
	return keys, nil
}
