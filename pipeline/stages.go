package pipeline

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strings"

	"github.com/ybbench/ybbench/infra"
	"github.com/ybbench/ybbench/internal/atomicfile"
	"github.com/ybbench/ybbench/internal/exitcode"
	"github.com/ybbench/ybbench/provision"
)

// needHosts makes the runner for a stage that works on the hosts: they
// must have been made (or taken) since the last teardown, and the run must
// not be finished (a finished run is not reopened).
func (r *Run) needHosts() error {
	if err := r.Finished(); err != nil {
		return exitcode.Wrap(exitcode.Config, err)
	}
	if r.cluster != nil && !r.ledger.Done("up") && r.ledger.Record().Epoch > 0 {
		return exitcode.Errorf(exitcode.Config, "run %s was torn down: its hosts are gone (ybbench resume --run %s makes them again and runs it)",
			r.dir, filepath.Base(r.dir))
	}
	return r.ensureRunner()
}

// ensureRunner makes the runner that reaches the hosts; every stage that
// needs one needs the cluster too, which only a finished up records.
func (r *Run) ensureRunner() error {
	if r.cluster == nil {
		return exitcode.Errorf(exitcode.Config, "run %s has no hosts: its up did not finish (ybbench resume --run %s continues it; ybbench down --run %s ends it)",
			r.dir, filepath.Base(r.dir), filepath.Base(r.dir))
	}
	if r.runner != nil {
		return nil
	}
	rn, err := r.deps.Runner(&r.spec.Spec, r.dir, r.log())
	if err != nil {
		return exitcode.Wrap(exitcode.Tool, err)
	}
	r.runner = rn
	return nil
}

// provider returns the run's provider (made once).
func (r *Run) provider() (infra.Provider, error) {
	if r.prov == nil {
		p, err := r.deps.Provider(&r.spec.Spec, r.dir)
		if err != nil {
			return nil, err
		}
		r.prov = p
	}
	return r.prov, nil
}

// hostNames lists hosts' names.
func hostNames(hs []infra.Host) []string {
	out := make([]string, len(hs))
	for i, h := range hs {
		out[i] = h.Name
	}
	return out
}

// Up creates the hosts (cluster.json). A cloud run's hosts are the
// profile's hardware for the provider; the step records the estimate of
// their cost and what the provider's check found (the cluster's Meta).
func (r *Run) Up(ctx context.Context) error {
	s := r.spec
	p, perr := r.provider()
	reg := r.deps.registry()
	spec, serr := s.clusterSpec(reg, r.profile())
	_, cloud := s.cloudOf(reg)
	about := fmt.Sprintf("create %d db and %d client hosts with provider %s", spec.DBHosts, spec.ClientHosts, s.Provider)
	if cloud {
		about += fmt.Sprintf(" (%s, client %s) in %s", spec.InstanceType, spec.ClientType, spec.Zone)
	}
	if perr == nil && p.Traits().ReusesMachines {
		about = "take the hosts of " + s.Provider + " " + s.Inventory
	}
	return r.step("up", about, nil, func() (map[string]string, error) {
		if perr != nil {
			return nil, perr
		}
		if serr != nil {
			return nil, exitcode.Wrap(exitcode.Config, serr)
		}
		if cloud && spec.Options[infra.OptionSSHCIDR] == "" {
			// Check looks the address up before a run is created; a run
			// made some other way must say whom SSH is open to.
			return nil, exitcode.Errorf(exitcode.Config, "%s: not set: the run's spec must say which addresses may reach the hosts' SSH port", sshCIDRSetting)
		}
		keyDir := filepath.Join(r.dir, "ssh")
		pub, priv := "", filepath.Join(keyDir, "id_ed25519")
		if b, err := os.ReadFile(priv + ".pub"); err == nil {
			pub = strings.TrimSpace(string(b))
		} else {
			if pub, priv, err = r.deps.NewKey(keyDir); err != nil {
				return nil, exitcode.Wrap(exitcode.Tool, err)
			}
		}
		spec.Name, spec.RunDir, spec.PublicKey, spec.PrivateKeyFile = r.ID(), r.dir, pub, priv
		if !cloud {
			// The documented types, for a provider that wants to know.
			spec.InstanceType, spec.ClientType = r.profile().Hardware.DB.Type, r.profile().Hardware.Client.Type
		}
		c, err := p.Create(ctx, spec)
		if err != nil {
			return nil, exitcode.Wrap(exitcode.Infra, err)
		}
		r.cluster = c
		// What the provider found and used (its check's facts, the
		// Terraform version, the zone a fallback chose).
		details := maps.Clone(c.Meta)
		if details == nil {
			details = map[string]string{}
		}
		details["hosts"] = strings.Join(hostNames(c.Hosts), ",")
		if cloud {
			maps.Copy(details, estimateDetails(spec, s.Provider))
		}
		for _, h := range c.Hosts {
			r.progress().Host(h.Name, "up at "+h.PublicIP)
			// Where each host's SSH key pin comes from, trust on first use included.
			if h.SSH.HostKeySource != "" {
				details[h.Name+".host_key_source"] = h.SSH.HostKeySource
			}
		}
		return details, atomicfile.WriteJSON(filepath.Join(r.dir, ClusterFile), c, 0o644)
	})
}

// Preflight checks every host: reachable, disk, ulimits, clock skew.
func (r *Run) Preflight(ctx context.Context) error {
	if err := r.needHosts(); err != nil {
		return err
	}
	return r.step("preflight", "check every host: reachable, disk, ulimits, clock skew", hostNames(r.cluster.Hosts), func() (map[string]string, error) {
		facts, err := r.deps.Preflight(ctx, r.runner, r.cluster.Hosts, r.spec.MaxClockSkew)
		r.facts = facts
		if werr := atomicfile.WriteJSON(filepath.Join(r.dir, FactsFile), facts, 0o644); werr != nil && err == nil {
			err = werr
		}
		details := map[string]string{}
		for h, f := range facts {
			if s, ok := f["clock_skew_ms"]; ok {
				details[h+".clock_skew_ms"] = s
			}
		}
		return details, exitcode.Wrap(exitcode.Provision, err)
	})
}

// Install installs and starts the database (deployment.json).
func (r *Run) Install(ctx context.Context) error {
	if err := r.needHosts(); err != nil {
		return err
	}
	dbs := r.cluster.ByRole(infra.RoleDB)
	return r.step("install", "install and start "+r.spec.Flavor+" on the db hosts", hostNames(dbs), func() (map[string]string, error) {
		fl, err := r.deps.Flavor(r.spec.Flavor)
		if err != nil {
			return nil, exitcode.Wrap(exitcode.Config, err)
		}
		src, err := r.tarball()
		if err != nil {
			return nil, exitcode.Wrap(exitcode.Tool, err)
		}
		fs := provision.FlavorSpec{RF: min(3, len(dbs)), SecretsDir: filepath.Join(r.dir, "secrets"), Parallel: r.spec.Parallel,
			Logger: r.log(), Source: src, SHA256: r.spec.YBSHA256, Settings: map[string]string{},
			RunID: r.ID(), ToolVersion: Version, NoAuth: r.spec.DBAuth == "off"}
		dep, err := fl.Install(ctx, r.runner, r.cluster, fs)
		if err != nil {
			// A failed install may still have changed the hosts (a package,
			// a user): the flavor says so in a partial deployment, and the
			// ledger keeps it.
			var details map[string]string
			if dep != nil {
				details = installDetails(dep)
			}
			return details, exitcode.Wrap(exitcode.Provision, err)
		}
		r.dep = dep
		for _, h := range dbs {
			r.progress().Host(h.Name, fmt.Sprintf("%s %s running", dep.Flavor, dep.Version))
		}
		return installDetails(dep), atomicfile.WriteJSON(filepath.Join(r.dir, DeploymentFile), dep, 0o644)
	})
}

// installDetails are what the install step records in the ledger: the
// version, and what the flavor changed on each host outside the run's own
// directories (packages, users, kernel settings), so that an operator can
// see from run.json what a run left on their machines.
func installDetails(dep *provision.Deployment) map[string]string {
	d := map[string]string{}
	if dep.Version != "" {
		d["version"] = dep.Version
	}
	for h, changes := range dep.HostChanges {
		if len(changes) > 0 {
			d["host_changes."+h] = strings.Join(changes, "; ")
		}
	}
	if dep.Settings["auth"] == "off" {
		d["auth"] = "off"
	}
	return d
}
