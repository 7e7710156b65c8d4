package ssh

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	xssh "golang.org/x/crypto/ssh"

	"github.com/ybbench/ybbench/infra"
)

// Every flavor script needs root (useradd, chown, runuser, apt-get), and
// cloud images log in as an unprivileged user (ubuntu). A host whose SSH
// user is not root therefore runs every command through `sudo -n`: the
// command line gains only that prefix, and the environment and script
// still travel on stdin, which sudo passes on. Whether sudo works without
// a password is checked once per connection, before the first command,
// so that a host that cannot is one clear error rather than a failure
// deep inside some step.

// escalates reports whether commands on h run through sudo.
func escalates(h infra.Host) bool { return sshUser(h) != "root" }

// sudoCheck is the command that proves passwordless sudo: it needs no
// stdin and changes nothing.
const sudoCheck = "sudo -n true"

// SudoError is a login user that cannot become root without a password.
type SudoError struct {
	Host, User string
	// Said is what the host answered (sudo's message), trimmed.
	Said string
}

func (e *SudoError) Error() string {
	msg := fmt.Sprintf("user %s on host %s cannot run sudo without a password; ybbench needs root or passwordless sudo", e.User, e.Host)
	if e.Said != "" {
		msg += " (" + e.Said + ")"
	}
	return msg
}

// checkSudo runs sudoCheck on a fresh connection to h. A non-zero exit
// (a password asked for, no sudoers entry, no sudo at all) is a
// *SudoError; a failure to run it at all is returned as it is.
func checkSudo(client *xssh.Client, h infra.Host) error {
	s, err := client.NewSession()
	if err != nil {
		return fmt.Errorf("open session to check sudo: %w", err)
	}
	defer s.Close()
	var out bytes.Buffer
	s.Stdout, s.Stderr = &out, &out
	err = s.Run(sudoCheck)
	var exitErr *xssh.ExitError
	if errors.As(err, &exitErr) {
		said := strings.TrimSpace(out.String())
		if len(said) > 300 {
			said = said[:300] + "…"
		}
		return &SudoError{Host: h.Name, User: sshUser(h), Said: said}
	}
	if err != nil {
		return fmt.Errorf("check sudo: %w", err)
	}
	return nil
}
