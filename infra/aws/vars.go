package aws

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/crypto/ssh"

	"github.com/ybbench/ybbench/infra"
	"github.com/ybbench/ybbench/infra/cloudinit"
	"github.com/ybbench/ybbench/infra/cloudtag"
)

// run is what Create needs of a spec beyond its settings: the run's
// identity, files and keys.
type run struct {
	id, runDir, owner string
	lifetime          time.Duration
	// pubKey is the run's SSH public key, normalised; keyFile its private
	// half's path.
	pubKey, keyFile string
}

// readRun checks what Create needs beyond the settings, every problem at
// once.
func readRun(spec infra.ClusterSpec) (run, []error) {
	var errs []error
	r := run{id: spec.Name, owner: spec.Owner, lifetime: spec.Lifetime}
	if !infra.ValidRunID(spec.Name) {
		errs = append(errs, fmt.Errorf("run id %q: want %s", spec.Name, infra.RunIDRule))
	}
	var err error
	if r.runDir, err = filepath.Abs(spec.RunDir); spec.RunDir == "" || err != nil {
		errs = append(errs, errors.New("no run directory"))
	}
	if strings.TrimSpace(spec.Owner) == "" {
		errs = append(errs, errors.New("owner: not set (the ybbench:owner tag)"))
	}
	if spec.Lifetime <= 0 {
		errs = append(errs, fmt.Errorf("lifetime %v: want a positive duration (the hosts power off at its end)", spec.Lifetime))
	}
	if pub, _, _, _, err := ssh.ParseAuthorizedKey([]byte(spec.PublicKey)); err != nil {
		errs = append(errs, fmt.Errorf("public key: not an authorized_keys line: %v", err))
	} else {
		r.pubKey = strings.TrimSpace(string(ssh.MarshalAuthorizedKey(pub)))
	}
	if r.keyFile, err = filepath.Abs(spec.PrivateKeyFile); spec.PrivateKeyFile == "" || err != nil {
		errs = append(errs, errors.New("no private key file (the hosts' SSH settings name it)"))
	}
	return r, errs
}

// hostVar is an element of the module's hosts variable.
type hostVar struct {
	Name          string `json:"name"`
	Role          string `json:"role"`
	InstanceType  string `json:"instance_type"`
	DataDiskCount int    `json:"data_disk_count"`
	UserData      string `json:"user_data"`
}

// moduleVars are the module's variables for a run (terraform/aws
// variables.tf): its tags' values, where it goes, who may reach it, and
// each host with its user data, rendered with the host key the state
// holds for it and the state's expiry.
func moduleVars(r run, s settings, st runState) (map[string]any, error) {
	tags, err := cloudtag.AWSTags(cloudtag.Meta{RunID: r.id, Owner: r.owner, Created: st.Created, Expires: st.Expires})
	if err != nil {
		return nil, err
	}
	var hosts []hostVar
	for _, h := range s.hosts() {
		key, ok := st.HostKeys[h.name]
		if !ok {
			return nil, fmt.Errorf("host %s: no host key in the run state", h.name)
		}
		ud, err := cloudinit.Render(cloudinit.Params{RunID: r.id, Host: h.name, Cloud: cloudinit.CloudAWS,
			HostKey: key, Expires: st.Expires, DataDisks: h.dataDisks})
		if err != nil {
			return nil, err
		}
		hosts = append(hosts, hostVar{Name: h.name, Role: string(h.role), InstanceType: h.instanceType,
			DataDiskCount: h.gp3, UserData: string(ud)})
	}
	vars := map[string]any{
		"run_id":         r.id,
		"owner":          tags[cloudtag.TagOwner],
		"created":        tags[cloudtag.TagCreated],
		"expires":        tags[cloudtag.TagExpires],
		"region":         s.region,
		"zone":           st.Zone,
		"ssh_cidr":       s.sshCIDR,
		"ami":            st.AMI,
		"vpc_cidr":       vpcCIDR,
		"subnet_cidr":    subnetCIDR,
		"hosts":          hosts,
		"ssh_public_key": r.pubKey,
	}
	if s.disks.Kind == diskGP3 {
		vars["data_disk_gb"] = s.disks.SizeGB
	}
	return vars, nil
}
