package ssh

import (
	"crypto/ed25519"
	"crypto/rand"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	xssh "golang.org/x/crypto/ssh"
)

func newHostKey(t *testing.T) xssh.PublicKey {
	t.Helper()
	pub, _, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	k, err := xssh.NewPublicKey(pub)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func TestKnownHostsPinsAtFirstContactAndRefusesAChange(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ssh", "known_hosts")
	kh, err := LoadKnownHosts(path)
	if err != nil {
		t.Fatal(err)
	}
	k1, k2 := newHostKey(t), newHostKey(t)

	pinned, err := kh.Check("db1", "10.0.0.1:2222", k1)
	if err != nil || !pinned {
		t.Fatalf("first contact: pinned=%v err=%v", pinned, err)
	}
	pinned, err = kh.Check("db1", "10.0.0.1:2222", k1)
	if err != nil || pinned {
		t.Fatalf("same key again: pinned=%v err=%v", pinned, err)
	}
	_, err = kh.Check("db1", "10.0.0.1:2222", k2)
	var hk *HostKeyChangedError
	if !errors.As(err, &hk) {
		t.Fatalf("changed key: %v", err)
	}
	if hk.Host != "db1" || hk.Pinned != xssh.FingerprintSHA256(k1) || hk.Offered != xssh.FingerprintSHA256(k2) || hk.Source != path {
		t.Fatalf("error fields %+v", hk)
	}
	for _, want := range []string{"db1", hk.Pinned, hk.Offered, path} {
		if !strings.Contains(err.Error(), want) {
			t.Fatalf("message lacks %q: %v", want, err)
		}
	}
	// Another port of the same address is another host.
	if _, err := kh.Check("db1-other", "10.0.0.1:22", k2); err != nil {
		t.Fatal(err)
	}

	// The file is OpenSSH's format with the address as ssh writes it, 0600
	// in a 0700 directory, and a new process reads the same pins.
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "[10.0.0.1]:2222 ssh-ed25519 ") || !strings.HasPrefix(lines[1], "10.0.0.1 ssh-ed25519 ") {
		t.Fatalf("file:\n%s", b)
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o600 {
		t.Fatalf("file mode %v", st.Mode().Perm())
	}
	if st, _ := os.Stat(filepath.Dir(path)); st.Mode().Perm() != 0o700 {
		t.Fatalf("dir mode %v", st.Mode().Perm())
	}
	again, err := LoadKnownHosts(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := again.Check("db1", "10.0.0.1:2222", k2); !errors.As(err, &hk) {
		t.Fatalf("reloaded file does not hold the pin: %v", err)
	}
	if keys := again.Keys("10.0.0.1:2222"); len(keys) != 1 || xssh.FingerprintSHA256(keys[0]) != xssh.FingerprintSHA256(k1) {
		t.Fatalf("Keys = %v", keys)
	}
}

func TestKnownHostsConcurrentFirstContacts(t *testing.T) {
	path := filepath.Join(t.TempDir(), "known_hosts")
	kh, err := LoadKnownHosts(path)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := kh.Check("h", "10.0.1."+string(rune('0'+i%10))+string(rune('0'+i/10))+":22", newHostKey(t)); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	again, err := LoadKnownHosts(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(again.keys) != 20 {
		t.Fatalf("%d hosts in the file, want 20", len(again.keys))
	}
}

func TestKnownHostsFileErrors(t *testing.T) {
	k := newHostKey(t)
	key := strings.TrimSpace(string(xssh.MarshalAuthorizedKey(k)))
	for _, tc := range []struct {
		name, content, want string
	}{
		{"marker", "@cert-authority *.example " + key + "\n", "line 1: marker @cert-authority"},
		{"hashed", "# comment\n\n|1|c2FsdA==|aGFzaA== " + key + "\n", "line 3: hashed host names"},
		{"garbage", "10.0.0.1 ssh-ed25519 !!!\n", "line 1:"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "known_hosts")
			if err := os.WriteFile(path, []byte(tc.content), 0o600); err != nil {
				t.Fatal(err)
			}
			_, err := LoadKnownHosts(path)
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), path) {
				t.Fatalf("err = %v, want %q and the path", err, tc.want)
			}
		})
	}
	// Comments, blank lines and several names per line are fine.
	path := filepath.Join(t.TempDir(), "known_hosts")
	content := "# pinned by hand\n\n10.0.0.1,[10.0.0.2]:2200 " + key + " a comment\n"
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	kh, err := LoadKnownHosts(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(kh.Keys("10.0.0.1:22")) != 1 || len(kh.Keys("10.0.0.2:2200")) != 1 || len(kh.Keys("10.0.0.2:22")) != 0 {
		t.Fatalf("keys: %v", kh.keys)
	}
}

func TestFixedPinFromHostRecord(t *testing.T) {
	k1, k2 := newHostKey(t), newHostKey(t)
	p := hostPin{host: "db1", addr: "10.0.0.1:22", fixed: []xssh.PublicKey{k1}}
	cb := p.callback(nil)
	if err := cb("10.0.0.1:22", nil, k1); err != nil {
		t.Fatal(err)
	}
	err := cb("10.0.0.1:22", nil, k2)
	var hk *HostKeyChangedError
	if !errors.As(err, &hk) || hk.Source != fixedPinSource || !strings.Contains(err.Error(), "ssh.host_key") {
		t.Fatalf("err = %v", err)
	}
	if k, err := parseHostKey("not a key"); err == nil {
		t.Fatalf("parsed %v", k)
	}
}

// A host record may carry several keys (a host known_hosts lists by
// more than one type): any of them passes, and a changed key names the
// file the pin came from.
func TestFixedPinSeveralKeysAndSource(t *testing.T) {
	k1, k2, k3 := newHostKey(t), newHostKey(t), newHostKey(t)
	line := func(k xssh.PublicKey) string { return strings.TrimSpace(string(xssh.MarshalAuthorizedKey(k))) }
	keys, err := parseHostKey(line(k1) + "\n" + line(k2) + "\n")
	if err != nil || len(keys) != 2 {
		t.Fatalf("parseHostKey: %v %v", keys, err)
	}
	p := hostPin{host: "db1", addr: "10.0.0.1:2222", fixed: keys, fixedFrom: "/home/u/.ssh/known_hosts"}
	cb := p.callback(nil)
	for _, k := range []xssh.PublicKey{k1, k2} {
		if err := cb("10.0.0.1:2222", nil, k); err != nil {
			t.Fatal(err)
		}
	}
	err = cb("10.0.0.1:2222", nil, k3)
	var hk *HostKeyChangedError
	if !errors.As(err, &hk) || hk.Source != p.fixedFrom || !strings.Contains(err.Error(), "remove its line from /home/u/.ssh/known_hosts") {
		t.Fatalf("err = %v", err)
	}
	if _, err := parseHostKey(line(k1) + "\ngarbage"); err == nil {
		t.Fatal("a bad second line was accepted")
	}
}

func TestHostKeyAlgorithms(t *testing.T) {
	ed := newHostKey(t)
	got := hostKeyAlgorithms([]xssh.PublicKey{ed, ed})
	if strings.Join(got, ",") != xssh.KeyAlgoED25519 {
		t.Fatalf("ed25519: %v", got)
	}
	rsaLine := "ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAAAgQDDXoQk0hSp0I3xObrE3P4l6O3cRfN3gk7xJ+Ai4J7V5OaRQd2M3/fu0pfbd0dB1YtpbFpxbTg5zI7vfMtTqvCzQJpUk8zI4bfDO5kFh2djEKbQ9Ofuh5vxkNpVtpxU0IFPh5VrxvXk5OF1U9Hh1GfRqH1d4C2L0e2A8oPJZUQ4PQ=="
	rk, _, _, _, err := xssh.ParseAuthorizedKey([]byte(rsaLine))
	if err != nil {
		t.Fatal("the RSA test key does not parse:", err)
	}
	got = hostKeyAlgorithms([]xssh.PublicKey{rk})
	if strings.Join(got, ",") != "rsa-sha2-512,rsa-sha2-256,ssh-rsa" {
		t.Fatalf("rsa: %v", got)
	}
}
