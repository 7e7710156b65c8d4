package gcp

import (
	"fmt"
	"time"

	"github.com/ybbench/ybbench/infra/cloudinit"
	"github.com/ybbench/ybbench/infra/cloudtag"
)

// GoogleProviderVersion is the hashicorp/google release terraform/gcp
// pins (versions.tf): the one its schema was checked against.
const GoogleProviderVersion = "6.50.0"

// BootDiskGB is each host's boot disk (pd-balanced): the image and the
// software ybbench installs; data goes to the local SSDs.
const BootDiskGB = 50

// descriptionMarks is the module's description_marks: what the
// descriptions of the resources without labels carry, as
// cloudtag.GCPDescription writes them.
type descriptionMarks struct {
	RunID   string `json:"run_id"`
	Created string `json:"created"`
	Expires string `json:"expires"`
}

// moduleVars are terraform/gcp's variables (variables.tf) for a run. The
// labels and names come from cloudtag, so that what the module marks is
// what the janitor and Destroy's check read back.
func moduleVars(f *facts, m cloudtag.Meta, image, publicKey string, userData map[string]string) (map[string]any, error) {
	labels, err := cloudtag.GCPLabels(m)
	if err != nil {
		return nil, err
	}
	names, err := cloudtag.NamesFor(m.RunID)
	if err != nil {
		return nil, err
	}
	for _, h := range f.hosts() {
		if _, ok := userData[h.Name]; !ok {
			return nil, fmt.Errorf("terraform variables: no user data for host %s", h.Name)
		}
	}
	return map[string]any{
		"run_id":   labels[cloudtag.LabelRunID],
		"run_hash": labels[cloudtag.LabelRunHash],
		"owner":    labels[cloudtag.LabelOwner],
		"created":  labels[cloudtag.LabelCreated],
		"expires":  labels[cloudtag.LabelExpires],
		"description_marks": descriptionMarks{RunID: m.RunID,
			Created: m.Created.UTC().Format(time.RFC3339), Expires: m.Expires.UTC().Format(time.RFC3339)},
		"name_prefix":     namePrefix(names),
		"project":         f.project,
		"region":          f.region,
		"zone":            f.zone,
		"ssh_cidr":        f.sshCIDR,
		"image":           image,
		"subnet_cidr":     SubnetCIDR,
		"hosts":           f.hosts(),
		"user_data":       userData,
		"boot_disk_gb":    BootDiskGB,
		"max_run_seconds": int64(f.lifetime / time.Second),
		"ssh_user":        cloudinit.LoginUser,
		"ssh_public_key":  publicKey,
	}, nil
}
