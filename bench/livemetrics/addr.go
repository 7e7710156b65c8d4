package livemetrics

import (
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"syscall"
)

// ParseAddr checks an address to serve on, as every mode's option takes
// it: HOST:PORT, HOST an IP address or a host name (empty: every
// interface), PORT a number (0: any free port, said on stderr). It returns
// the address in canonical form. A bare port is refused: the address a
// listener is bound to is a choice (the orchestrator gives each agent its
// client's private address), not to be made by default.
func ParseAddr(s string) (string, error) {
	host, port, err := net.SplitHostPort(strings.TrimSpace(s))
	if err != nil {
		return "", errors.New("want HOST:PORT, such as 10.0.0.5:9464 (:9464 for every interface)")
	}
	n, err := strconv.ParseUint(port, 10, 16)
	if err != nil {
		return "", fmt.Errorf("port %q: want a number from 0 to 65535 (0: any free port)", port)
	}
	if host != "" && net.ParseIP(host) == nil && !hostName(host) {
		return "", fmt.Errorf("host %q: want an IP address or a host name", host)
	}
	return net.JoinHostPort(host, strconv.FormatUint(n, 10)), nil
}

// hostName reports whether s can be a DNS host name: labels of letters,
// digits and hyphens.
func hostName(s string) bool {
	for _, label := range strings.Split(strings.TrimSuffix(s, "."), ".") {
		if label == "" || len(label) > 63 || strings.HasPrefix(label, "-") || strings.HasSuffix(label, "-") {
			return false
		}
		for _, r := range label {
			if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-') {
				return false
			}
		}
	}
	return len(s) <= 253
}

// listenError says why addr could not be listened on, in words a person
// acts on: the usual two causes named, the system's error kept.
func listenError(addr string, err error) error {
	switch {
	case errors.Is(err, syscall.EADDRINUSE):
		return fmt.Errorf("cannot listen on %s: the port is in use (another agent or exporter on this host?): %w", addr, err)
	case errors.Is(err, syscall.EADDRNOTAVAIL):
		return fmt.Errorf("cannot listen on %s: no interface of this host has that address: %w", addr, err)
	}
	return fmt.Errorf("cannot listen on %s: %w", addr, err)
}
