package pipeline

import (
	"fmt"
	"sort"
	"strings"
)

// teardownOutcome is the last thing the progress says of a run: that the
// teardown left nothing, or what remains. reusesMachines is the
// provider's trait (an inventory's machines stay by design); leftOnHosts
// are the changes the run made outside its own directories, which a
// teardown does not undo (a package installed, a user added), by host.
func teardownOutcome(err error, reusesMachines bool, leftOnHosts map[string]string, runDir string) string {
	if err != nil {
		return fmt.Sprintf("teardown incomplete, resources may remain: %s (ybbench down --run %s retries)", firstLine(err.Error()), runDir)
	}
	if !reusesMachines {
		return "torn down, nothing left: the hosts are destroyed"
	}
	out := "torn down: the run's database and files are removed from the hosts, which stay (an inventory's machines are never deleted)"
	if len(leftOnHosts) == 0 {
		return out + "; nothing else left"
	}
	hosts := make([]string, 0, len(leftOnHosts))
	for h := range leftOnHosts {
		hosts = append(hosts, h)
	}
	sort.Strings(hosts)
	var left []string
	for _, h := range hosts {
		left = append(left, h+": "+leftOnHosts[h])
	}
	return out + "; left on them: " + strings.Join(left, "; ")
}

// hostChanges gathers what the ledger's steps of the current epoch
// recorded as changed on hosts outside the run's own directories
// (details host_changes.<host>), by host.
func (r *Run) hostChanges() map[string]string {
	out := map[string]string{}
	rec := r.ledger.Record()
	for _, st := range rec.Steps {
		if st.Epoch != rec.Epoch {
			continue
		}
		for k, v := range st.Details {
			h, ok := strings.CutPrefix(k, "host_changes.")
			if !ok || v == "" {
				continue
			}
			if out[h] != "" {
				v = out[h] + "; " + v
			}
			out[h] = v
		}
	}
	return out
}
