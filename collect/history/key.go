package history

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/ybbench/ybbench/collect"
)

// Key is what makes two runs' figures comparable: the same profile,
// workload and operation (empty for the workload as a whole), on the same
// database flavor, hardware and client count, with the same parameters.
// The database's version is not part of it: a new version is a new build
// of the same series, which is what a release history is about.
type Key struct {
	Profile   string `json:"profile"`
	Workload  string `json:"workload"`
	Operation string `json:"operation,omitempty"`
	Flavor    string `json:"flavor"`
	// Hardware is the hosts as the run recorded them, per role: how many
	// and of what instance type (or cores, where no type was recorded).
	Hardware string `json:"hardware"`
	Clients  int    `json:"clients"`
	// Parameters are the run's parameters but those that do not shape a
	// workload's own figures (which workloads ran, how many repetitions).
	Parameters map[string]string `json:"parameters"`
}

// notKeyParameters are the parameters that do not shape a workload's
// figures: a run of workload C alone measures what a run of A–F measures
// of C, and five repetitions what one does, more often.
var notKeyParameters = []string{"workloads", "repeat"}

// ID is the key's short, stable name: the first 12 hex digits of the
// SHA-256 of its canonical JSON.
func (k Key) ID() string {
	b, _ := json.Marshal(k) // map keys sorted: canonical
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])[:12]
}

// Path is profile/workload[/operation], how a person names a series.
func (k Key) Path() string {
	p := k.Profile + "/" + k.Workload
	if k.Operation != "" {
		p += "/" + k.Operation
	}
	return p
}

// Describe is the key in words, for listings.
func (k Key) Describe() string {
	names := slices.Sorted(maps.Keys(k.Parameters))
	var ps []string
	for _, n := range names {
		ps = append(ps, n+"="+k.Parameters[n])
	}
	return fmt.Sprintf("%s on %s; %s", k.Path(), k.On(), strings.Join(ps, " "))
}

// On is what the series ran on: flavor, hardware and clients, as far as
// the results recorded them.
func (k Key) On() string {
	var parts []string
	for _, p := range []string{k.Flavor, k.Hardware} {
		if p != "" {
			parts = append(parts, p)
		}
	}
	return strings.Join(append(parts, fmt.Sprintf("%d client(s)", k.Clients)), ", ")
}

// keyBase is the part of a key every series of a result shares.
func keyBase(r *collect.Result) Key {
	k := Key{Profile: r.Profile, Flavor: flavorOf(r), Hardware: hardwareOf(r.Hosts), Parameters: map[string]string{}}
	for n, v := range r.Parameters {
		if !slices.Contains(notKeyParameters, n) {
			k.Parameters[n] = v
		}
	}
	for _, h := range r.Hosts {
		if slices.Contains(h.Roles, "client") {
			k.Clients++
		}
	}
	return k
}

func flavorOf(r *collect.Result) string {
	if r.Database != nil && r.Database.Flavor != "" {
		return r.Database.Flavor
	}
	return r.Parameters["flavor"]
}

// hardwareOf says, per role, how many hosts of which instance type a run
// had ("client 1×c5.4xlarge, db 3×c5.4xlarge"); a host with no recorded
// type is named by its cores ("8 cpus"), and a local one as local.
func hardwareOf(hosts []collect.Host) string {
	count := map[string]int{}
	for _, h := range hosts {
		kind := h.InstanceType
		switch {
		case kind == "" && h.Shared:
			kind = "local"
		case kind == "" && h.Facts["cpus"] != "":
			kind = h.Facts["cpus"] + " cpus"
		case kind == "":
			kind = "unknown"
		}
		roles := slices.Clone(h.Roles)
		sort.Strings(roles)
		count[strings.Join(roles, "+")+" "+kind]++
	}
	var parts []string
	for _, rk := range slices.Sorted(maps.Keys(count)) {
		role, kind, _ := strings.Cut(rk, " ")
		parts = append(parts, fmt.Sprintf("%s %d×%s", role, count[rk], kind))
	}
	return strings.Join(parts, ", ")
}
