package aws

import (
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/ybbench/ybbench/infra/cloudinit"
	"github.com/ybbench/ybbench/internal/atomicfile"
)

// runState is what a run's first Create fixes and every later Create of
// the same run (a resumed up) reuses. Terraform replaces a host whose
// user data changes, and the user data holds the host's SSH host key and
// the expiry; the AMI and zone are kept so that a newer Ubuntu image or
// another fallback zone does not replace the hosts either. The file
// holds private host keys: 0600 in a 0700 directory.
type runState struct {
	Created    time.Time                    `json:"created"`
	Expires    time.Time                    `json:"expires"`
	Zone       string                       `json:"zone"`
	ZoneReason string                       `json:"zone_reason"`
	AMI        string                       `json:"ami"`
	HostKeys   map[string]cloudinit.HostKey `json:"host_keys"`
}

// stateDir and stateFile are where the run state lives in the run
// directory.
const (
	stateDir  = "aws"
	stateFile = "state.json"
)

func statePath(runDir string) string { return filepath.Join(runDir, stateDir, stateFile) }

// loadState reads the run's state; found is false when no Create made it
// yet.
func loadState(runDir string) (st runState, found bool, err error) {
	b, err := os.ReadFile(statePath(runDir))
	if errors.Is(err, fs.ErrNotExist) {
		return runState{}, false, nil
	}
	if err != nil {
		return runState{}, false, fmt.Errorf("aws run state: %w", err)
	}
	if err := json.Unmarshal(b, &st); err != nil {
		return runState{}, false, fmt.Errorf("aws run state %s: %w", statePath(runDir), err)
	}
	return st, true, nil
}

// saveState writes the run's state, 0600 in a 0700 directory.
func saveState(runDir string, st runState) error {
	dir := filepath.Join(runDir, stateDir)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("aws run state: %w", err)
	}
	if err := os.Chmod(dir, 0o700); err != nil {
		return fmt.Errorf("aws run state: %w", err)
	}
	if err := atomicfile.WriteJSON(statePath(runDir), st, 0o600); err != nil {
		return fmt.Errorf("aws run state: %w", err)
	}
	return nil
}

// hostKeys makes a host key for each host that has none yet, from r
// (crypto/rand.Reader outside tests), and reports whether it made any.
func (st *runState) hostKeys(r io.Reader, names []string) (bool, error) {
	if r == nil {
		r = rand.Reader
	}
	if st.HostKeys == nil {
		st.HostKeys = map[string]cloudinit.HostKey{}
	}
	made := false
	for _, n := range names {
		if _, ok := st.HostKeys[n]; ok {
			continue
		}
		k, err := cloudinit.GenerateHostKey(r)
		if err != nil {
			return made, fmt.Errorf("host %s: %w", n, err)
		}
		st.HostKeys[n] = k
		made = true
	}
	return made, nil
}
