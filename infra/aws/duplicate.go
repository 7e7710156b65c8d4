package aws

import (
	"errors"
	"regexp"
	"strings"

	"github.com/ybbench/ybbench/infra/terraform"
)

// duplicateCode matches an EC2 error code that refuses a create because
// the thing exists already (InvalidGroup.Duplicate,
// InvalidKeyPair.Duplicate, InvalidPlacementGroup.Duplicate).
var duplicateCode = regexp.MustCompile(`\bInvalid[A-Za-z]+\.Duplicate\b`)

// ownDuplicate reports whether a failed apply was refused a create as a
// duplicate of something named after this run. Nothing but this run's
// own apply makes a resource with its id in the name, so the cloud had
// done a create whose answer the provider did not get (a connection that
// dropped; its SDK then sent the request again): the first copy is the
// run's, tagged as its own, and Terraform's state does not record it.
// Another run's or another tool's duplicate does not name this run, and
// is not this run's to remove.
func ownDuplicate(err error, runID string) bool {
	var te *terraform.Error
	if runID == "" || !errors.As(err, &te) || te.Command != "apply" {
		return false
	}
	return duplicateCode.MatchString(te.Stderr) && strings.Contains(te.Stderr, runID)
}
