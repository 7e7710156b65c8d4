package gcp

import (
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/ybbench/ybbench/infra/cloudinit"
	"github.com/ybbench/ybbench/internal/atomicfile"
)

// RunStateFile is the file, in Terraform's working directory, that keeps
// what a run's first Create chose and a later one must reuse: Create is
// idempotent by the run id only if the module's variables stay the same,
// and new host keys, times or image would make Terraform replace every
// host. It holds the private host keys: 0600 in the 0700 directory.
const RunStateFile = "ybbench-gcp.json"

// runState is RunStateFile's content.
type runState struct {
	Created time.Time `json:"created"`
	Expires time.Time `json:"expires"`
	Zone    string    `json:"zone"`
	// Image is the image the family resolved to: project/name.
	Image    string                       `json:"image"`
	HostKeys map[string]cloudinit.HostKey `json:"host_keys"`
}

// loadRunState reads a run's state; ok is false when there is none yet.
func loadRunState(dir string) (st runState, ok bool, err error) {
	b, err := os.ReadFile(filepath.Join(dir, RunStateFile))
	if errors.Is(err, fs.ErrNotExist) {
		return runState{}, false, nil
	}
	if err != nil {
		return runState{}, false, fmt.Errorf("run state: %w", err)
	}
	if err := json.Unmarshal(b, &st); err != nil {
		return runState{}, false, fmt.Errorf("run state %s: %w", filepath.Join(dir, RunStateFile), err)
	}
	return st, true, nil
}

// ensureHostKeys makes a host key for each host that has none yet.
func (st *runState) ensureHostKeys(hosts []hostPlan) error {
	if st.HostKeys == nil {
		st.HostKeys = map[string]cloudinit.HostKey{}
	}
	for _, h := range hosts {
		if _, ok := st.HostKeys[h.Name]; ok {
			continue
		}
		k, err := cloudinit.GenerateHostKey(rand.Reader)
		if err != nil {
			return err
		}
		st.HostKeys[h.Name] = k
	}
	return nil
}

// save writes the state, 0600.
func (st runState) save(dir string) error {
	if err := atomicfile.WriteJSON(filepath.Join(dir, RunStateFile), st, 0o600); err != nil {
		return fmt.Errorf("run state: %w", err)
	}
	return nil
}
