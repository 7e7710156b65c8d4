// Package cloudtag is how ybbench marks what it makes in a cloud, and how
// the janitor reads the marks back: AWS tags, GCP labels, and, for the GCP
// resources that take no labels (networks, firewalls), names derived from
// the run id and a description. Every mark says the same five things: the
// resource is ybbench's (managed), which run made it, who ran it, when,
// and when it expires. The functions are pure; the janitor and the
// Terraform modules' variables are their users.
package cloudtag

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"github.com/ybbench/ybbench/infra"
)

// Meta is what a run's cloud resources carry.
type Meta struct {
	RunID string
	// Owner is who started the run (the operator's user name); any text,
	// cleaned to each cloud's syntax when written.
	Owner   string
	Created time.Time
	Expires time.Time
}

// ErrUnmanaged is returned by the parsers for a resource without
// ybbench's managed mark: the janitor must neither list nor touch it.
var ErrUnmanaged = errors.New("not managed by ybbench")

// validate reports every problem with m at once, each naming its field.
func (m Meta) validate() error {
	var errs []error
	if !infra.ValidRunID(m.RunID) {
		errs = append(errs, fmt.Errorf("run id %q: want %s", m.RunID, infra.RunIDRule))
	}
	if m.Created.IsZero() {
		errs = append(errs, errors.New("created: not set"))
	}
	if m.Expires.IsZero() {
		errs = append(errs, errors.New("expires: not set"))
	}
	if !m.Created.IsZero() && !m.Expires.IsZero() && !m.Expires.After(m.Created) {
		errs = append(errs, fmt.Errorf("expires %s is not after created %s", stamp(m.Expires), stamp(m.Created)))
	}
	if len(errs) > 0 {
		return fmt.Errorf("cloud marks: %w", errors.Join(errs...))
	}
	return nil
}

// stamp is a time as the AWS tags and descriptions hold it: RFC 3339 in
// UTC, to the second (labels cannot hold more than seconds either).
func stamp(t time.Time) string { return t.UTC().Format(time.RFC3339) }

// RunHash is the first 16 hex digits of sha256(run id): 64 bits, enough
// to tell runs apart, short enough for GCP's 63-character names and label
// values, which cannot hold every run id as it is (uppercase, '.', 64
// characters).
func RunHash(runID string) string {
	sum := sha256.Sum256([]byte(runID))
	return hex.EncodeToString(sum[:])[:16]
}

// Found is what a parser read back from a resource's marks.
type Found struct {
	// Run is the run id as the resource holds it: exact in AWS tags and
	// GCP descriptions, label-cleaned (lowercase, cut) in GCP labels.
	Run string
	// RunHash is RunHash of the real run id where the marks carry it
	// (GCP labels and names), else computed from Run.
	RunHash string
	Owner   string
	// Created is zero when the marks do not say.
	Created time.Time
	Expires time.Time
}

// Of reports whether the resource belongs to the run with this id.
func (f Found) Of(runID string) bool { return f.RunHash == RunHash(runID) }

// Expired reports whether the resource's expiry is at or before now.
func (f Found) Expired(now time.Time) bool { return !f.Expires.After(now) }
