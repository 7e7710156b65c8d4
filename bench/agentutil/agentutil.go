// Package agentutil holds the small pieces every ybload command shares:
// reading a secret from a private file, CPU profiling, the agent's name,
// and waiting for the wall-clock instant several agents start at.
package agentutil

import (
	"fmt"
	"os"
	"runtime/pprof"
	"strings"
)

// ReadSecretFile reads a password from a file readable by its owner only,
// so that it never needs to be on a command line. A file others can read is
// refused.
func ReadSecretFile(path string) (string, error) {
	st, err := os.Stat(path)
	if err != nil {
		return "", err
	}
	if st.Mode().Perm()&0o077 != 0 {
		return "", fmt.Errorf("%s is readable by others (mode %v): make it 0600", path, st.Mode().Perm())
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	return strings.TrimRight(string(b), "\r\n"), nil
}

// StartCPUProfile writes a pprof CPU profile until the returned function is called.
func StartCPUProfile(path string) (func(), error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() { pprof.StopCPUProfile(); f.Close() }, nil
}

// Hostname is the agent's default name in its records.
func Hostname() string {
	h, err := os.Hostname()
	if err != nil {
		return "agent"
	}
	return h
}
