package cloudtag

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/ybbench/ybbench/infra"
)

// GCP networks and firewalls take no labels (cloud.md §2.2, G2), so the
// janitor finds them by name and dates them by description. A name is
// "ybb-" + RunHash(run id) + "-" + what it is: a valid GCE name
// ([a-z]([-a-z0-9]*[a-z0-9])?, at most 63 characters) whatever the run id,
// and the same for every resource of a run.
const namePrefix = "ybb-"

// gceName is what GCE accepts as a resource name (RFC 1035 label).
var gceName = regexp.MustCompile(`^[a-z]([-a-z0-9]*[a-z0-9])?$`)

// GCPName names a resource of the run: what is a short lowercase word
// such as "net", "ssh" or "db-1". It fails, naming the argument, when the
// result would not be a valid GCE name.
func GCPName(runID, what string) (string, error) {
	if !infra.ValidRunID(runID) {
		return "", fmt.Errorf("gcp name: run id %q is not a run id", runID)
	}
	n := namePrefix + RunHash(runID) + "-" + what
	if len(n) > labelMax || !gceName.MatchString(n) {
		return "", fmt.Errorf("gcp name for %q: %q is not a GCE name (lowercase letters, digits and '-', ending in a letter or digit, at most %d characters)", what, n, labelMax)
	}
	return n, nil
}

// GCPNames are the names of a run's network resources in GCP.
type GCPNames struct {
	Network, Subnetwork, FirewallSSH, FirewallInternal string
}

// NamesFor returns the network resources' names of a run.
func NamesFor(runID string) (GCPNames, error) {
	var n GCPNames
	var errs []error
	for _, x := range []struct {
		to   *string
		what string
	}{{&n.Network, "net"}, {&n.Subnetwork, "subnet"}, {&n.FirewallSSH, "ssh"}, {&n.FirewallInternal, "internal"}} {
		v, err := GCPName(runID, x.what)
		errs = append(errs, err)
		*x.to = v
	}
	return n, errors.Join(errs...)
}

// RunHashOfName returns the RunHash a name made by GCPName carries, and
// false for a name GCPName did not make.
func RunHashOfName(name string) (string, bool) {
	rest, ok := strings.CutPrefix(name, namePrefix)
	if !ok || len(rest) < 18 || rest[16] != '-' || !hashPattern.MatchString(rest[:16]) || !gceName.MatchString(name) {
		return "", false
	}
	return rest[:16], true
}

// descriptionHead opens every description, for whoever reads it in the
// console; the marks after it use the AWS tags' keys, one vocabulary.
const descriptionHead = "Made by ybbench; deleted by `ybbench janitor` after its expiry."

// GCPDescription is the description of a run's network and firewalls:
// a sentence for people, then the marks as key=value words (run ids and
// RFC 3339 times hold no spaces). The owner is left out: descriptions are
// for finding and dating, and a long owner could pass GCE's 2048
// characters.
func GCPDescription(m Meta) (string, error) {
	if err := m.validate(); err != nil {
		return "", err
	}
	return fmt.Sprintf("%s %s=true %s=%s %s=%s %s=%s", descriptionHead,
		TagManaged, TagRunID, m.RunID, TagCreated, stamp(m.Created), TagExpires, stamp(m.Expires)), nil
}

// ParseGCPDescription reads a network's or firewall's description back.
// A description without ybbench:managed=true gives ErrUnmanaged; a key
// given twice is an error (the janitor must not guess which counts).
func ParseGCPDescription(d string) (Found, error) {
	kv := map[string]string{}
	var errs []error
	for _, w := range strings.Fields(d) {
		k, v, ok := strings.Cut(w, "=")
		if !ok || !strings.HasPrefix(k, "ybbench:") {
			continue
		}
		if _, dup := kv[k]; dup {
			errs = append(errs, fmt.Errorf("description: %s given twice", k))
		}
		kv[k] = v
	}
	if kv[TagManaged] != "true" {
		return Found{}, ErrUnmanaged
	}
	f := Found{Run: kv[TagRunID]}
	if !infra.ValidRunID(f.Run) {
		errs = append(errs, fmt.Errorf("description: %s %q is not a run id", TagRunID, f.Run))
	}
	f.RunHash = RunHash(f.Run)
	var err error
	if f.Expires, err = parseStamp("description: "+TagExpires, kv[TagExpires], true); err != nil {
		errs = append(errs, err)
	}
	if f.Created, err = parseStamp("description: "+TagCreated, kv[TagCreated], false); err != nil {
		errs = append(errs, err)
	}
	if len(errs) > 0 {
		return Found{}, errors.Join(errs...)
	}
	return f, nil
}
