package cloudtag

import (
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/ybbench/ybbench/infra"
)

// The AWS tag keys. The "ybbench:" prefix keeps them apart from other
// tools' tags; AWS reserves only "aws:" (cloud.md §0 W9).
const (
	TagRunID   = "ybbench:run-id"
	TagOwner   = "ybbench:owner"
	TagCreated = "ybbench:created"
	TagExpires = "ybbench:expires"
	TagManaged = "ybbench:managed"
)

// awsMaxValue is the longest tag value AWS takes, in Unicode characters.
const awsMaxValue = 256

// AWSTags returns the tags of every resource of the run (the modules'
// default_tags): times in RFC 3339 UTC.
func AWSTags(m Meta) (map[string]string, error) {
	if err := m.validate(); err != nil {
		return nil, err
	}
	return map[string]string{
		TagRunID:   m.RunID,
		TagOwner:   awsTagValue(m.Owner),
		TagCreated: stamp(m.Created),
		TagExpires: stamp(m.Expires),
		TagManaged: "true",
	}, nil
}

// awsTagValue cleans s to what AWS allows in a tag value: letters, digits
// and spaces in UTF-8 and _ . : / = + - @, at most 256 characters (W9).
// Anything else becomes '_', so an odd user name still tags the run.
func awsTagValue(s string) string {
	s = strings.ToValidUTF8(s, "_")
	var b strings.Builder
	n := 0
	for _, r := range s {
		if n == awsMaxValue {
			break
		}
		if !(unicode.IsLetter(r) || unicode.IsDigit(r) || r == ' ' || strings.ContainsRune("_.:/=+-@", r)) {
			r = '_'
		}
		b.WriteRune(r)
		n++
	}
	return b.String()
}

// ParseAWSTags reads a resource's tags back. A resource without
// ybbench:managed=true gives ErrUnmanaged; a managed one whose run id or
// expiry is missing or malformed gives an error naming the tag.
func ParseAWSTags(tags map[string]string) (Found, error) {
	if tags[TagManaged] != "true" {
		return Found{}, ErrUnmanaged
	}
	var errs []error
	f := Found{Run: tags[TagRunID], Owner: tags[TagOwner]}
	if !infra.ValidRunID(f.Run) {
		errs = append(errs, fmt.Errorf("tag %s: %q is not a run id", TagRunID, f.Run))
	}
	f.RunHash = RunHash(f.Run)
	var err error
	if f.Expires, err = parseStamp(TagExpires, tags[TagExpires], true); err != nil {
		errs = append(errs, err)
	}
	if f.Created, err = parseStamp(TagCreated, tags[TagCreated], false); err != nil {
		errs = append(errs, err)
	}
	if utf8.RuneCountInString(f.Owner) > awsMaxValue {
		errs = append(errs, fmt.Errorf("tag %s: longer than %d characters", TagOwner, awsMaxValue))
	}
	if len(errs) > 0 {
		return Found{}, errors.Join(errs...)
	}
	return f, nil
}

// parseStamp parses an RFC 3339 time held under key; an empty value is an
// error only when required.
func parseStamp(key, v string, required bool) (time.Time, error) {
	if v == "" {
		if required {
			return time.Time{}, fmt.Errorf("%s: missing", key)
		}
		return time.Time{}, nil
	}
	t, err := time.Parse(time.RFC3339, v)
	if err != nil {
		return time.Time{}, fmt.Errorf("%s: %q is not an RFC 3339 time", key, v)
	}
	return t.UTC(), nil
}
