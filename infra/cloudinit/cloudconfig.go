package cloudinit

import (
	"fmt"

	"gopkg.in/yaml.v3"
)

// cloudConfig is the part of the user data that cloud-init's own modules
// act on. It is marshalled, not templated, so that a key's PEM text can
// never break the YAML.
type cloudConfig struct {
	// SSHDeleteKeys removes the image's host keys before ours are written.
	SSHDeleteKeys bool `yaml:"ssh_deletekeys"`
	// SSHGenKeyTypes is empty so that no key type ssh_keys does not name
	// (rsa, ecdsa) is generated: nobody would pin it. cloud-init's cc_ssh
	// (canonical/cloud-init cloudinit/config/cc_ssh.py) generates none
	// when ssh_keys is given; the empty list keeps it so whatever the
	// release.
	SSHGenKeyTypes []string          `yaml:"ssh_genkeytypes"`
	SSHKeys        map[string]string `yaml:"ssh_keys"`
	// Mounts drops cloud-init's default entry [ephemeral0, /mnt], which
	// would mount the first instance-store disk at /mnt: the data disks are
	// ybbench-disks' job. An entry with the fs_spec alone (or null as its
	// mount point) removes a default (cloud-init's cc_mounts docs).
	Mounts     [][]any     `yaml:"mounts"`
	WriteFiles []writeFile `yaml:"write_files,omitempty"`
}

type writeFile struct {
	Path        string `yaml:"path"`
	Permissions string `yaml:"permissions"`
	Owner       string `yaml:"owner"`
	Content     string `yaml:"content"`
}

// gcpGuestAgentConfig stops Google's guest agent from replacing the host
// keys. It does replace them otherwise: on an instance's first boot (its
// instance id differs from the one saved in /etc/google_instance_id) the
// agent regenerates every host key unless [InstanceSetup] set_host_keys
// is false, and the option defaults to true (GoogleCloudPlatform/
// guest-agent google_guest_agent/instance_setup.go, generateSSHKeys; the
// newer plugin-based agent, GoogleCloudPlatform/google-guest-agent
// internal/cfg/cfg.go, has the same default and reads the same file,
// /etc/default/instance_configs.cfg). cloud.md does not settle this (its
// §9 lists guest-agent host keys as not checked). cloud-init's write_files
// runs in its network stage, which systemd orders before
// network-online.target (canonical/cloud-init systemd/cloud-init.service
// .tmpl); both agents' units start after network-online.target
// (google-guest-agent.service, google-guest-agent-manager.service), so the
// setting is on disk before the agent reads it. Should the agent win
// anyway, the run's pinned key no longer matches and the first connection
// fails: a refusal, never a silent trust.
var gcpGuestAgentConfig = writeFile{
	Path:        "/etc/default/instance_configs.cfg",
	Permissions: "0644",
	Owner:       "root:root",
	Content:     "[InstanceSetup]\nset_host_keys = false\n",
}

// renderCloudConfig renders the #cloud-config document for one host.
func renderCloudConfig(cloud string, key HostKey) ([]byte, error) {
	cc := cloudConfig{
		SSHDeleteKeys:  true,
		SSHGenKeyTypes: []string{},
		SSHKeys: map[string]string{
			"ed25519_private": key.Private,
			"ed25519_public":  key.Public,
		},
		Mounts: [][]any{{"ephemeral0", nil}},
	}
	if cloud == CloudGCP {
		cc.WriteFiles = []writeFile{gcpGuestAgentConfig}
	}
	body, err := yaml.Marshal(cc)
	if err != nil {
		return nil, fmt.Errorf("cloud-config: %w", err)
	}
	return append([]byte("#cloud-config\n"), body...), nil
}
