package infra

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// TestRemainsError: nothing left and a complete listing is a verified
// teardown; what is left is a LeftoverError with the janitor command that
// deletes it; a failed listing or a resource whose marks cannot be read
// leaves the teardown unverified, saying why, how terraform destroy went
// and the janitor command that lists what remains.
func TestRemainsError(t *testing.T) {
	left := []Resource{{Type: "instance", ID: "i-1", RunID: "r1", Expires: time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)}}
	if err := RemainsError("aws", "r1", "--region us-east-1", errors.New("destroy failed"), nil, nil, nil); err != nil {
		t.Errorf("nothing left: %v", err)
	}
	for _, tc := range []struct {
		name       string
		destroyErr error
		left       []Resource
		damaged    []error
		listErr    error
		leftover   bool
		says, not  []string
	}{
		{name: "left", left: left, leftover: true,
			says: []string{"instance i-1 (run r1", "remove them with: ybbench janitor --provider aws --region us-east-1 --run r1 --yes"},
			not:  []string{"cannot verify"}},
		{name: "listing failed", listErr: errors.New("listing vpcs: throttled"),
			says: []string{"aws: cannot verify the teardown of run r1: listing vpcs: throttled (terraform destroy: ok); list what remains with: ybbench janitor --provider aws --region us-east-1 --run r1"},
			not:  []string{"--yes"}},
		{name: "damaged and left", destroyErr: errors.New("exit status 1"), left: left, damaged: []error{errors.New("volume v-1: tag ybbench:expires: bad")}, leftover: true,
			says: []string{"instance i-1 (run r1", "cannot verify the teardown of run r1: volume v-1: tag ybbench:expires: bad (terraform destroy: exit status 1)"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := RemainsError("aws", "r1", "--region us-east-1", tc.destroyErr, tc.left, tc.damaged, tc.listErr)
			if err == nil {
				t.Fatal("no error")
			}
			var le *LeftoverError
			if errors.As(err, &le) != tc.leftover || tc.leftover && (len(le.Resources) != 1 || le.Scope != "--region us-east-1") {
				t.Errorf("leftover error: %+v in %v", le, err)
			}
			for _, s := range tc.says {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("the error does not say %q: %v", s, err)
				}
			}
			for _, s := range tc.not {
				if strings.Contains(err.Error(), s) {
					t.Errorf("the error says %q: %v", s, err)
				}
			}
		})
	}
}
