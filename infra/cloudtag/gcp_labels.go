package cloudtag

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// The GCP label keys: the AWS tags' meaning in GCP's label syntax (keys
// and values at most 63 characters of lowercase letters, digits, '_' and
// '-'; a key starts with a letter: cloud.md §2.6, P7). Times are Unix
// seconds, since ':' and uppercase cannot be in a value. The run id is
// cleaned to fit, so the label ybbench-run-hash carries RunHash of the
// real id, which is what identifies the run.
const (
	LabelRunID   = "ybbench-run-id"
	LabelRunHash = "ybbench-run-hash"
	LabelOwner   = "ybbench-owner"
	LabelCreated = "ybbench-created"
	LabelExpires = "ybbench-expires"
	LabelManaged = "ybbench-managed"
)

// labelMax is the longest label key or value.
const labelMax = 63

// labelValuePattern is what a label value may be.
var labelValuePattern = regexp.MustCompile(`^[a-z0-9_-]{0,63}$`)

// GCPLabels returns the labels of every labelled resource of the run
// (the module's default_labels and the instances' labels).
func GCPLabels(m Meta) (map[string]string, error) {
	if err := m.validate(); err != nil {
		return nil, err
	}
	return map[string]string{
		LabelRunID:   LabelValue(m.RunID),
		LabelRunHash: RunHash(m.RunID),
		LabelOwner:   LabelValue(m.Owner),
		LabelCreated: strconv.FormatInt(m.Created.Unix(), 10),
		LabelExpires: strconv.FormatInt(m.Expires.Unix(), 10),
		LabelManaged: "true",
	}, nil
}

// LabelValue cleans s to a GCP label value: lowercase, every character
// outside [a-z0-9_-] (after lowercasing ASCII) as '_', at most 63
// characters. It is lossy; RunHash is the exact mark of a run.
func LabelValue(s string) string {
	var b strings.Builder
	for _, r := range s {
		if b.Len() == labelMax {
			break
		}
		switch {
		case r >= 'A' && r <= 'Z':
			r += 'a' - 'A'
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '_', r == '-':
		default:
			r = '_'
		}
		b.WriteRune(r)
	}
	return b.String()
}

// ParseGCPLabels reads a labelled resource's marks back. Labels without
// ybbench-managed=true give ErrUnmanaged; other labels (such as the
// provider's goog-terraform-provisioned) are ignored.
func ParseGCPLabels(labels map[string]string) (Found, error) {
	if labels[LabelManaged] != "true" {
		return Found{}, ErrUnmanaged
	}
	var errs []error
	f := Found{Run: labels[LabelRunID], RunHash: labels[LabelRunHash], Owner: labels[LabelOwner]}
	if f.Run == "" || !labelValuePattern.MatchString(f.Run) {
		errs = append(errs, fmt.Errorf("label %s: %q is not a run id label", LabelRunID, f.Run))
	}
	if !hashPattern.MatchString(f.RunHash) {
		errs = append(errs, fmt.Errorf("label %s: %q is not 16 hex digits", LabelRunHash, f.RunHash))
	}
	var err error
	if f.Expires, err = parseUnix(LabelExpires, labels[LabelExpires], true); err != nil {
		errs = append(errs, err)
	}
	if f.Created, err = parseUnix(LabelCreated, labels[LabelCreated], false); err != nil {
		errs = append(errs, err)
	}
	if len(errs) > 0 {
		return Found{}, errors.Join(errs...)
	}
	return f, nil
}

// hashPattern is a RunHash.
var hashPattern = regexp.MustCompile(`^[0-9a-f]{16}$`)

// parseUnix parses Unix seconds held under key.
func parseUnix(key, v string, required bool) (time.Time, error) {
	if v == "" {
		if required {
			return time.Time{}, fmt.Errorf("%s: missing", key)
		}
		return time.Time{}, nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n <= 0 || v[0] == '+' {
		return time.Time{}, fmt.Errorf("%s: %q is not Unix seconds", key, v)
	}
	return time.Unix(n, 0).UTC(), nil
}
