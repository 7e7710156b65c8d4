package inventory

import (
	"crypto/ed25519"
	"crypto/rand"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	xssh "golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"

	"github.com/ybbench/ybbench/infra"
	"github.com/ybbench/ybbench/internal/exitcode"
)

// UserKnownHosts is the invoking user's known_hosts file:
// ~/.ssh/known_hosts, ~ being os.UserHomeDir ($HOME; under sudo, usually
// root's). "" when there is no home.
func UserKnownHosts() string {
	home, err := os.UserHomeDir()
	if err != nil || home == "" {
		return ""
	}
	return filepath.Join(home, ".ssh", "known_hosts")
}

// pinHostKeys gives every host without an ssh.host_key the keys known for
// the address the orchestrator dials: from its ssh.known_hosts file if
// that file knows it, else from the user's ~/.ssh/known_hosts. Hosts with
// no known key are refused together (exit 2), each with the ssh-keyscan
// line that would add it, unless accept, which marks them
// AcceptedOnFirstUse (the runner then pins what they offer at first
// contact in the run's known-hosts file).
func pinHostKeys(inv string, hosts []infra.Host, extra []hostExtra, accept bool) error {
	user := UserKnownHosts()
	if user != "" {
		if _, err := os.Stat(user); errors.Is(err, fs.ErrNotExist) {
			user = ""
		}
	}
	var errs []error
	for i := range hosts {
		h := &hosts[i]
		if h.SSH.HostKey != "" {
			continue
		}
		var files []string
		if extra[i].knownHosts != "" {
			files = append(files, extra[i].knownHosts)
		}
		if user != "" {
			files = append(files, user)
		}
		addr := net.JoinHostPort(h.PublicIP, strconv.Itoa(h.SSH.Port))
		keys, from, err := lookupKnownHosts(files, addr)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s:%d: hosts[%d] %s: %w", inv, extra[i].line, i, h.Name, err))
			continue
		}
		if len(keys) > 0 {
			lines := make([]string, len(keys))
			for j, k := range keys {
				lines[j] = strings.TrimSpace(string(xssh.MarshalAuthorizedKey(k)))
			}
			h.SSH.HostKey = strings.Join(lines, "\n")
			h.SSH.HostKeySource = from
			continue
		}
		if accept {
			h.SSH.HostKeySource = AcceptedOnFirstUse
			continue
		}
		target := extra[i].knownHosts
		if target == "" {
			target = UserKnownHosts()
		}
		if target == "" {
			target = "~/.ssh/known_hosts"
		}
		searched := "no ssh.host_key, and no key for " + knownhosts.Normalize(addr) + " in " + strings.Join(files, " or ")
		if len(files) == 0 {
			searched = "no ssh.host_key, no ssh.known_hosts, and no " + target
		}
		errs = append(errs, fmt.Errorf("%s:%d: hosts[%d] %s: unknown SSH host key (%s); refusing to connect. "+
			"Check the key out of band, then add it with\n    %s\nor set ssh.host_key on the host (or run with --accept-new-host-keys to trust the key it offers at first contact, recorded in the run)",
			inv, extra[i].line, i, h.Name, searched, KeyscanLine(h.PublicIP, h.SSH.Port, target)))
	}
	if len(errs) > 0 {
		return exitcode.Wrap(exitcode.Config, errors.Join(errs...))
	}
	return nil
}

// KeyscanLine is the shell line that appends the host keys of host:port
// to file (the port given only when it is not 22, as ssh-keyscan writes
// the entry the way ssh looks it up).
func KeyscanLine(host string, port int, file string) string {
	p := ""
	if port != 0 && port != 22 {
		p = "-p " + strconv.Itoa(port) + " "
	}
	return "ssh-keyscan " + p + host + " >> " + file
}

// probeKey is a key no known_hosts line lists: offered to a file's check,
// it makes the check say which keys it would accept.
var probeKey = func() xssh.PublicKey {
	pub, _, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		panic(err)
	}
	k, err := xssh.NewPublicKey(pub)
	if err != nil {
		panic(err)
	}
	return k
}()

// lookupKnownHosts returns the keys the first of files that knows addr
// (host:port, as dialed) lists for it, hashed entries included, revoked
// keys left out, and that file's name.
func lookupKnownHosts(files []string, addr string) ([]xssh.PublicKey, string, error) {
	_, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, "", err
	}
	p, _ := strconv.Atoi(port)
	// The address given is what is matched; the remote only has to be TCP.
	remote := &net.TCPAddr{IP: net.IPv4zero, Port: p}
	for _, f := range files {
		check, err := knownhosts.New(f)
		if err != nil {
			return nil, "", fmt.Errorf("known hosts: %w", err)
		}
		var ke *knownhosts.KeyError
		if err := check(addr, remote, probeKey); !errors.As(err, &ke) || len(ke.Want) == 0 {
			continue
		}
		var keys []xssh.PublicKey
		for _, w := range ke.Want {
			var re *knownhosts.RevokedError
			if err := check(addr, remote, w.Key); errors.As(err, &re) {
				continue
			}
			keys = append(keys, w.Key)
		}
		if len(keys) > 0 {
			return keys, f, nil
		}
	}
	return nil, "", nil
}
