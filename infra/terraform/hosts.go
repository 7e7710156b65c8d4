package terraform

import (
	"context"
	"encoding/json"
	"fmt"
	"net/netip"

	"github.com/hashicorp/terraform-exec/tfexec"

	"github.com/ybbench/ybbench/infra"
	"github.com/ybbench/ybbench/internal/exitcode"
)

// HostsOutput is the output every ybbench module defines: the cluster's
// hosts in order.
const HostsOutput = "hosts"

// outputHost is one element of the hosts output, as the modules' contract
// defines it. ProviderID (the cloud's id of the machine) and InstanceType
// are optional: the cloud modules give them, terraform/local does not.
type outputHost struct {
	Name         string `json:"name"`
	Role         string `json:"role"`
	PublicIP     string `json:"public_ip"`
	PrivateIP    string `json:"private_ip"`
	Zone         string `json:"zone"`
	ProviderID   string `json:"provider_id,omitempty"`
	InstanceType string `json:"instance_type,omitempty"`
}

// Hosts reads the "hosts" output (`terraform output -json`) and converts it
// to hosts: Name, Roles, PublicIP, PrivateIP and Zone set, ProviderID and
// InstanceType when the module gives them, the rest left to the provider. A host with a defect (no name, an address that does not
// parse, an unknown role, a repeated name) is returned with the defect in its
// Errors; a missing or malformed output is an error.
func (s *Stack) Hosts(ctx context.Context) ([]infra.Host, error) {
	var outputs map[string]tfexec.OutputMeta
	err := s.run(ctx, "output", func(ctx context.Context) error {
		var err error
		outputs, err = s.tf.Output(ctx)
		return err
	})
	if err != nil {
		return nil, err
	}
	return parseHosts(outputs)
}

func parseHosts(outputs map[string]tfexec.OutputMeta) ([]infra.Host, error) {
	out, ok := outputs[HostsOutput]
	if !ok {
		return nil, exitcode.Errorf(exitcode.Infra, "terraform: the module has no %q output (is anything applied?)", HostsOutput)
	}
	var list []outputHost
	if err := json.Unmarshal(out.Value, &list); err != nil {
		return nil, exitcode.Errorf(exitcode.Infra, "terraform: output %q is not a list of {name, role, public_ip, private_ip, zone}: %v", HostsOutput, err)
	}
	hosts := make([]infra.Host, 0, len(list))
	seen := map[string]bool{}
	for i, o := range list {
		h := infra.Host{Name: o.Name, PublicIP: o.PublicIP, PrivateIP: o.PrivateIP, Zone: o.Zone,
			ProviderID: o.ProviderID, InstanceType: o.InstanceType}
		if o.Role != "" {
			h.Roles = []infra.Role{infra.Role(o.Role)}
		}
		if o.Name == "" {
			h.Errors = append(h.Errors, fmt.Sprintf("host %d has no name", i))
		} else if !infra.ValidHostName(o.Name) {
			h.Errors = append(h.Errors, fmt.Sprintf("name %q: want 1 to 63 letters, digits and ._-", o.Name))
		} else if seen[o.Name] {
			h.Errors = append(h.Errors, fmt.Sprintf("name %q given twice", o.Name))
		}
		seen[o.Name] = true
		switch infra.Role(o.Role) {
		case infra.RoleDB, infra.RoleClient:
		default:
			h.Errors = append(h.Errors, fmt.Sprintf("role %q is neither %q nor %q", o.Role, infra.RoleDB, infra.RoleClient))
		}
		for _, a := range []struct{ field, v string }{{"public_ip", o.PublicIP}, {"private_ip", o.PrivateIP}} {
			if _, err := netip.ParseAddr(a.v); err != nil {
				h.Errors = append(h.Errors, fmt.Sprintf("%s %q is not an IP address", a.field, a.v))
			}
		}
		hosts = append(hosts, h)
	}
	return hosts, nil
}
