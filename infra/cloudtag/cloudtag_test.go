package cloudtag

import (
	"errors"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

var (
	created = time.Date(2026, 12, 1, 18, 30, 15, 987654321, time.FixedZone("CET", 3600))
	expires = created.Add(6 * time.Hour)
)

func meta(runID, owner string) Meta {
	return Meta{RunID: runID, Owner: owner, Created: created, Expires: expires}
}

// hostile are run ids and owners at the edges of what the marks must hold.
var hostile = []struct{ name, runID, owner string }{
	{"plain", "ycsb-ysql-261201-1830-0a1b2c3d", "alice"},
	{"uppercase and dots", "YCSB.Ysql_Run-261201-1830-0A1B2C3D", "Alice.Smith"},
	{"longest run id", strings.Repeat("R", 55) + "-0a1b2c3d", "bob"},
	{"owner with spaces", "r-1", "Alice Smith (QA team)"},
	{"owner in unicode", "r-2", "Zoë Ångström 山田"},
	{"owner very long", "r-3", strings.Repeat("long owner ", 100)},
	{"owner with quotes, newline, NUL", "r-4", "a\"b'c\nd\x00e;$(rm -rf /)"},
	{"owner not UTF-8", "r-5", "bad\xff\xfeutf8"},
	{"no owner", "r-6", ""},
}

// awsValue is AWS's documented tag value syntax (W9).
var awsValue = regexp.MustCompile(`^[\p{L}\p{Z}\p{N}_.:/=+\-@]*$`)

func TestAWSTagsRoundTrip(t *testing.T) {
	for _, tc := range hostile {
		t.Run(tc.name, func(t *testing.T) {
			tags, err := AWSTags(meta(tc.runID, tc.owner))
			if err != nil {
				t.Fatal(err)
			}
			for _, k := range []string{TagRunID, TagOwner, TagCreated, TagExpires, TagManaged} {
				v, ok := tags[k]
				if !ok {
					t.Errorf("no tag %s", k)
				}
				if utf8.RuneCountInString(v) > 256 || !awsValue.MatchString(v) {
					t.Errorf("tag %s = %q: not an AWS tag value", k, v)
				}
			}
			if len(tags) != 5 {
				t.Errorf("%d tags, want 5: %v", len(tags), tags)
			}
			if tags[TagExpires] != "2026-12-01T23:30:15Z" || tags[TagCreated] != "2026-12-01T17:30:15Z" {
				t.Errorf("times %q, %q: want RFC 3339 UTC to the second", tags[TagCreated], tags[TagExpires])
			}
			f, err := ParseAWSTags(tags)
			if err != nil {
				t.Fatal(err)
			}
			if f.Run != tc.runID || !f.Of(tc.runID) || f.Of(tc.runID+"x") {
				t.Errorf("run %q (hash %s) read back from %q", f.Run, f.RunHash, tc.runID)
			}
			if !f.Expires.Equal(expires.Truncate(time.Second)) || !f.Created.Equal(created.Truncate(time.Second)) {
				t.Errorf("times read back %s, %s", f.Created, f.Expires)
			}
			if utf8.ValidString(tc.owner) && awsValue.MatchString(tc.owner) && len(tc.owner) <= 256 && f.Owner != tc.owner {
				t.Errorf("owner %q read back as %q", tc.owner, f.Owner)
			}
		})
	}
}

func TestGCPLabelsRoundTrip(t *testing.T) {
	key := regexp.MustCompile(`^[a-z][a-z0-9_-]{0,62}$`)
	value := regexp.MustCompile(`^[a-z0-9_-]{0,63}$`)
	for _, tc := range hostile {
		t.Run(tc.name, func(t *testing.T) {
			labels, err := GCPLabels(meta(tc.runID, tc.owner))
			if err != nil {
				t.Fatal(err)
			}
			if len(labels) != 6 {
				t.Errorf("%d labels, want 6: %v", len(labels), labels)
			}
			for k, v := range labels {
				if !key.MatchString(k) || !value.MatchString(v) {
					t.Errorf("label %q = %q: not in GCP's label syntax", k, v)
				}
			}
			if labels[LabelExpires] != "1796167815" || labels[LabelCreated] != "1796146215" {
				t.Errorf("times %q, %q: want Unix seconds", labels[LabelCreated], labels[LabelExpires])
			}
			labels["goog-terraform-provisioned"] = "true" // the provider's own, ignored
			f, err := ParseGCPLabels(labels)
			if err != nil {
				t.Fatal(err)
			}
			if !f.Of(tc.runID) || f.Of(strings.ToLower(tc.runID)+"-") {
				t.Errorf("run hash %s does not identify %q", f.RunHash, tc.runID)
			}
			if want := strings.ToLower(tc.runID); len(want) <= 63 && !strings.Contains(want, ".") && f.Run != want {
				t.Errorf("run label %q, want %q", f.Run, want)
			}
			if !f.Expires.Equal(expires.Truncate(time.Second)) || !f.Created.Equal(created.Truncate(time.Second)) {
				t.Errorf("times read back %s, %s", f.Created, f.Expires)
			}
		})
	}
}

func TestLabelValue(t *testing.T) {
	for in, want := range map[string]string{
		"Alice Smith":                "alice_smith",
		"Zoë":                        "zo_",
		"a.b:c/d":                    "a_b_c_d",
		"ok-value_1":                 "ok-value_1",
		strings.Repeat("ab", 40):     strings.Repeat("ab", 31) + "a",
		strings.Repeat("é", 70):      strings.Repeat("_", 63),
		"":                           "",
		"YCSB-YSQL-261201-1830-ABCD": "ycsb-ysql-261201-1830-abcd",
	} {
		if got := LabelValue(in); got != want {
			t.Errorf("LabelValue(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestGCPNames(t *testing.T) {
	gce := regexp.MustCompile(`^[a-z]([-a-z0-9]*[a-z0-9])?$`)
	for _, tc := range hostile {
		t.Run(tc.name, func(t *testing.T) {
			n, err := NamesFor(tc.runID)
			if err != nil {
				t.Fatal(err)
			}
			seen := map[string]bool{}
			for _, name := range []string{n.Network, n.Subnetwork, n.FirewallSSH, n.FirewallInternal} {
				if len(name) > 63 || !gce.MatchString(name) {
					t.Errorf("%q is not a GCE name", name)
				}
				if seen[name] {
					t.Errorf("%q given twice", name)
				}
				seen[name] = true
				if h, ok := RunHashOfName(name); !ok || h != RunHash(tc.runID) {
					t.Errorf("RunHashOfName(%q) = %q, %v; want %s", name, h, ok, RunHash(tc.runID))
				}
			}
		})
	}
	a, _ := GCPName("run-a", "net")
	b, _ := GCPName("run-b", "net")
	if a == b {
		t.Errorf("two runs share the network name %q", a)
	}
	for _, bad := range []struct{ runID, what string }{
		{"r-1", "DB-1"}, {"r-1", "db_1"}, {"r-1", "db."}, {"r-1", strings.Repeat("x", 43)}, {"r-1", ""}, {"bad id", "net"},
	} {
		if n, err := GCPName(bad.runID, bad.what); err == nil {
			t.Errorf("GCPName(%q, %q) = %q, want an error", bad.runID, bad.what, n)
		}
	}
	for _, name := range []string{"default", "ybb-", "ybb-0123456789abcdef", "ybb-0123456789ABCDEF-net", "ybb-0123456789abcdefnet", "xyb-0123456789abcdef-net"} {
		if h, ok := RunHashOfName(name); ok {
			t.Errorf("RunHashOfName(%q) = %q, true; not one of ours", name, h)
		}
	}
}

func TestGCPDescriptionRoundTrip(t *testing.T) {
	for _, tc := range hostile {
		t.Run(tc.name, func(t *testing.T) {
			d, err := GCPDescription(meta(tc.runID, tc.owner))
			if err != nil {
				t.Fatal(err)
			}
			if len(d) > 2048 || !utf8.ValidString(d) || strings.ContainsAny(d, "\n\x00") {
				t.Errorf("description %q: not a GCE description", d)
			}
			f, err := ParseGCPDescription(d)
			if err != nil {
				t.Fatal(err)
			}
			if f.Run != tc.runID || !f.Of(tc.runID) {
				t.Errorf("run %q read back as %q", tc.runID, f.Run)
			}
			if !f.Expires.Equal(expires.Truncate(time.Second)) || !f.Created.Equal(created.Truncate(time.Second)) {
				t.Errorf("times read back %s, %s", f.Created, f.Expires)
			}
		})
	}
}

// TestParsersRefuse: marks that are not ybbench's are ErrUnmanaged (the
// janitor skips them silently); ybbench's marks that are damaged are an
// error naming the key (the janitor reports them).
func TestParsersRefuse(t *testing.T) {
	good, err := AWSTags(meta("r-1", "o"))
	if err != nil {
		t.Fatal(err)
	}
	with := func(m map[string]string, k, v string) map[string]string {
		c := map[string]string{}
		for a, b := range m {
			c[a] = b
		}
		if v == "<delete>" {
			delete(c, k)
		} else {
			c[k] = v
		}
		return c
	}
	labels, err := GCPLabels(meta("r-1", "o"))
	if err != nil {
		t.Fatal(err)
	}
	desc, err := GCPDescription(meta("r-1", "o"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		parse func() (Found, error)
		want  string // "" for ErrUnmanaged
	}{
		{"aws: no managed tag", func() (Found, error) { return ParseAWSTags(with(good, TagManaged, "<delete>")) }, ""},
		{"aws: managed=TRUE", func() (Found, error) { return ParseAWSTags(with(good, TagManaged, "TRUE")) }, ""},
		{"aws: no tags", func() (Found, error) { return ParseAWSTags(nil) }, ""},
		{"aws: no expiry", func() (Found, error) { return ParseAWSTags(with(good, TagExpires, "<delete>")) }, TagExpires + ": missing"},
		{"aws: expiry in Unix seconds", func() (Found, error) { return ParseAWSTags(with(good, TagExpires, "1796171415")) }, TagExpires},
		{"aws: bad created", func() (Found, error) { return ParseAWSTags(with(good, TagCreated, "yesterday")) }, TagCreated},
		{"aws: run id with a space", func() (Found, error) { return ParseAWSTags(with(good, TagRunID, "a b")) }, TagRunID},
		{"aws: owner too long", func() (Found, error) {
			return ParseAWSTags(with(good, TagOwner, strings.Repeat("x", 257)))
		}, TagOwner},
		{"gcp labels: unmanaged", func() (Found, error) { return ParseGCPLabels(with(labels, LabelManaged, "false")) }, ""},
		{"gcp labels: no hash", func() (Found, error) { return ParseGCPLabels(with(labels, LabelRunHash, "<delete>")) }, LabelRunHash},
		{"gcp labels: RFC 3339 expiry", func() (Found, error) {
			return ParseGCPLabels(with(labels, LabelExpires, "2026-12-02t00_30_15z"))
		}, LabelExpires},
		{"gcp labels: negative expiry", func() (Found, error) { return ParseGCPLabels(with(labels, LabelExpires, "-5")) }, LabelExpires},
		{"gcp labels: uppercase run", func() (Found, error) { return ParseGCPLabels(with(labels, LabelRunID, "R-1")) }, LabelRunID},
		{"description: someone else's", func() (Found, error) { return ParseGCPDescription("allow ssh from the office") }, ""},
		{"description: empty", func() (Found, error) { return ParseGCPDescription("") }, ""},
		{"description: managed twice", func() (Found, error) {
			return ParseGCPDescription(desc + " ybbench:expires=2099-01-01T00:00:00Z")
		}, "given twice"},
		{"description: no expiry", func() (Found, error) {
			return ParseGCPDescription(strings.Join(strings.Fields(desc)[:len(strings.Fields(desc))-1], " "))
		}, TagExpires + ": missing"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tc.parse()
			switch {
			case tc.want == "" && !errors.Is(err, ErrUnmanaged):
				t.Errorf("err = %v, want ErrUnmanaged", err)
			case tc.want != "" && (err == nil || errors.Is(err, ErrUnmanaged) || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("err = %v, want one naming %q", err, tc.want)
			}
		})
	}
}

func TestMetaRefused(t *testing.T) {
	for _, tc := range []struct {
		name string
		m    Meta
		want []string
	}{
		{"bad run id", meta("../x", "o"), []string{"run id"}},
		{"run id too long", meta(strings.Repeat("a", 65), "o"), []string{"run id"}},
		{"no times", Meta{RunID: "r"}, []string{"created", "expires"}},
		{"expires first", Meta{RunID: "r", Created: expires, Expires: created}, []string{"not after created"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, f := range []func(Meta) error{
				func(m Meta) error { _, err := AWSTags(m); return err },
				func(m Meta) error { _, err := GCPLabels(m); return err },
				func(m Meta) error { _, err := GCPDescription(m); return err },
			} {
				err := f(tc.m)
				if err == nil {
					t.Fatal("accepted")
				}
				for _, w := range tc.want {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("%v does not name %q", err, w)
					}
				}
			}
		})
	}
}

func TestFoundExpired(t *testing.T) {
	f := Found{Expires: expires}
	if f.Expired(expires.Add(-time.Second)) || !f.Expired(expires) || !f.Expired(expires.Add(time.Hour)) {
		t.Error("Expired: want false before the expiry, true at and after it")
	}
}
