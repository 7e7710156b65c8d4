// Package local is the "local" infrastructure provider: a run's hosts on
// this machine, each a network namespace on a bridge with its own OpenSSH
// server, made by terraform/local (built-in resources running
// infra/local/hosts.sh) through the same Terraform seam as the clouds.
//
// Only the network is private to a local host: hosts share the filesystem,
// /etc/passwd and the package database with the orchestrator. Each host gets
// its own directory, runs/<id>/hosts/<name>, which is its Base; flavors write
// nowhere else on it (Host.Shared is set). Creating hosts needs root.
package local

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"maps"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"golang.org/x/crypto/ssh"

	"github.com/ybbench/ybbench/infra"
	"github.com/ybbench/ybbench/infra/terraform"
	"github.com/ybbench/ybbench/internal/atomicfile"
	"github.com/ybbench/ybbench/internal/exitcode"
	modules "github.com/ybbench/ybbench/terraform"
)

// ProviderName is the provider's name in specs and cluster.json.
const ProviderName = "local"

// DefaultSubnet is the subnet of a run's bridge unless spec.Options["subnet"]
// says otherwise: a range unlikely to be in use on a developer's machine or
// a CI runner.
const DefaultSubnet = "10.213.0.0/24"

// ServiceUser is the unprivileged OS user database servers run as on local
// hosts; hosts.sh creates it once for all of them.
const ServiceUser = "ybbench"

// OptionSubnet is the spec option that sets the subnet.
const OptionSubnet = "subnet"

// Keys of Cluster.Meta that Destroy works from (cluster.json alone suffices).
const (
	MetaRunDir = infra.MetaRunDir
	MetaSubnet = "subnet"
	MetaBridge = "bridge"
	MetaScript = "script"
)

// Provider makes and removes local hosts.
type Provider struct {
	terraformBin string
	module       fs.FS
	log          *slog.Logger
}

var _ infra.Provider = (*Provider)(nil)

// Option configures a Provider.
type Option func(*Provider)

// TerraformBinary sets the terraform executable (else $YBBENCH_TERRAFORM,
// else PATH).
func TerraformBinary(path string) Option { return func(p *Provider) { p.terraformBin = path } }

// Logger sets the logger (default: discard).
func Logger(l *slog.Logger) Option { return func(p *Provider) { p.log = l } }

// Module replaces the embedded terraform/local (for trying out a modified
// module from a checkout: os.DirFS("terraform/local")).
func Module(m fs.FS) Option { return func(p *Provider) { p.module = m } }

// New returns the local provider.
func New(opts ...Option) *Provider {
	p := &Provider{module: modules.Local(), log: slog.New(slog.DiscardHandler)}
	for _, f := range opts {
		f(p)
	}
	p.log = p.log.With("provider", ProviderName)
	return p
}

// Name returns "local".
func (p *Provider) Name() string { return ProviderName }

// Traits: see ProviderTraits.
func (p *Provider) Traits() infra.Traits { return ProviderTraits() }

// ProviderTraits are the local provider's traits, known without making
// one (the run's settings are validated against them): local hosts are
// made for the run and destroyed with it, are up (their sshd answers)
// when Create returns, need root to make, and a cluster holds 1 to
// MaxDBHosts db and 1 to 8 client hosts, namespaces sharing one machine's
// cores.
func ProviderTraits() infra.Traits {
	return infra.Traits{Running: true, NeedsRoot: true,
		DBHosts: infra.Range{Min: 1, Max: MaxDBHosts}, ClientHosts: infra.Range{Min: 1, Max: 8}}
}

// MaxDBHosts bounds a local cluster's db hosts as a cloud's are bounded
// (against a typo, not a limit of the hosts): the names, the veths
// (hosts.sh: a host's subnet offset in hex) and the default /24 subnet
// have room for 253 hosts, Check refuses a subnet too small for the
// count, and the flavors size what grows with it (PostgreSQL's WAL
// senders). It was 9 until the orchestrator's fan-out was measured over
// 30 hosts (docs/benchmarks.md); every host still shares this machine's
// cores and memory.
const MaxDBHosts = 32

// Plan lists the hosts Create would make (their names come from the
// counts alone) in a network namespace each, on the spec's subnet.
func (p *Provider) Plan(spec infra.ClusterSpec) ([]infra.PlannedHost, string, error) {
	var out []infra.PlannedHost
	for _, h := range hostNames(spec.DBHosts, spec.ClientHosts) {
		where := "network namespace on this machine"
		if h.Role == string(infra.RoleDB) {
			where += ", subnet " + spec.Options[OptionSubnet]
		}
		out = append(out, infra.PlannedHost{Name: h.Name, Roles: []infra.Role{infra.Role(h.Role)}, Where: where})
	}
	return out, "terraform apply of terraform/local (namespaces, bridge, one sshd per host)", nil
}

// requireRoot fails early and plainly: without root, hosts.sh would fail
// deep inside a Terraform provisioner.
func requireRoot(verb string) error {
	if os.Geteuid() != 0 {
		return exitcode.Errorf(exitcode.Config,
			"local provider: %s needs root: local hosts are network namespaces on a bridge, each running its own sshd; run ybbench as root (e.g. with sudo)", verb)
	}
	return nil
}

// runPlan is a validated spec with everything derived from it.
type runPlan struct {
	id, runDir string
	subnet     netip.Prefix
	names      names
	hosts      []hostVar
	pubKey     string
	keyFile    string
	script     string
}

func planFor(spec infra.ClusterSpec) (*runPlan, error) {
	var errs []error
	if !infra.ValidRunID(spec.Name) {
		errs = append(errs, fmt.Errorf("run id %q: want %s", spec.Name, infra.RunIDRule))
	}
	runDir, err := filepath.Abs(spec.RunDir)
	if spec.RunDir == "" || err != nil {
		errs = append(errs, fmt.Errorf("no run directory"))
	}
	if spec.DBHosts < 0 || spec.ClientHosts < 0 || spec.DBHosts+spec.ClientHosts == 0 {
		errs = append(errs, fmt.Errorf("hosts: %d db and %d client: want at least one, none negative", spec.DBHosts, spec.ClientHosts))
	}
	pub, _, _, _, err := ssh.ParseAuthorizedKey([]byte(spec.PublicKey))
	if err != nil {
		errs = append(errs, fmt.Errorf("public key: not an authorized_keys line: %v", err))
	}
	keyFile, err := filepath.Abs(spec.PrivateKeyFile)
	if spec.PrivateKeyFile == "" || err != nil {
		errs = append(errs, fmt.Errorf("no private key file (the hosts' SSH settings name it)"))
	}
	subnet, optErrs := options(spec)
	errs = append(errs, optErrs...)
	prefix, err := parseSubnet(subnet, spec.DBHosts+spec.ClientHosts)
	if err != nil {
		errs = append(errs, err)
	}
	if len(errs) > 0 {
		return nil, exitcode.Wrap(exitcode.Config, fmt.Errorf("local provider: %w", errors.Join(errs...)))
	}
	return &runPlan{
		id:      spec.Name,
		runDir:  runDir,
		subnet:  prefix,
		names:   namesFor(spec.Name),
		hosts:   hostNames(spec.DBHosts, spec.ClientHosts),
		pubKey:  strings.TrimSpace(string(ssh.MarshalAuthorizedKey(pub))),
		keyFile: keyFile,
		script:  filepath.Join(runDir, "bin", "hosts.sh"),
	}, nil
}

// options reads the spec's options: the subnet (DefaultSubnet when not
// given), and a problem for each option the local provider does not know.
func options(spec infra.ClusterSpec) (string, []error) {
	subnet := DefaultSubnet
	var errs []error
	for _, k := range slices.Sorted(maps.Keys(spec.Options)) {
		switch k {
		case OptionSubnet:
			subnet = spec.Options[k]
		default:
			errs = append(errs, &infra.SettingError{Setting: k, Err: fmt.Errorf("unknown option %q (the local provider knows: %s)", k, OptionSubnet)})
		}
	}
	return subnet, errs
}

// Create makes the run's hosts, or returns them if they are already made
// (Terraform plans no changes then). It returns when every host's sshd
// answers.
func (p *Provider) Create(ctx context.Context, spec infra.ClusterSpec) (*infra.Cluster, error) {
	if err := requireRoot("Create"); err != nil {
		return nil, err
	}
	rp, err := planFor(spec)
	if err != nil {
		return nil, err
	}
	log := p.log.With("run", rp.id)
	start := time.Now()
	if err := writeScript(rp.script); err != nil {
		return nil, err
	}
	stack, err := terraform.New(ctx, p.module, rp.runDir,
		terraform.Binary(p.terraformBin), terraform.Logger(log), terraform.Vars(map[string]any{
			"run_id":         rp.id,
			"run_dir":        rp.runDir,
			"hosts":          rp.hosts,
			"subnet":         rp.subnet.String(),
			"script":         rp.script,
			"bridge":         rp.names.bridge,
			"ssh_public_key": rp.pubKey,
		}))
	if err != nil {
		return nil, fmt.Errorf("local hosts of run %s: %w", rp.id, err)
	}
	out, err := stack.Up(ctx)
	if err != nil {
		return nil, fmt.Errorf("local hosts of run %s: %w", rp.id, err)
	}
	c, err := rp.cluster(out)
	if err != nil {
		return nil, err
	}
	c.Meta[infra.MetaTerraformVersion] = stack.Version()
	if err := waitSSH(ctx, c.Hosts, 10*time.Second); err != nil {
		return nil, exitcode.Wrap(exitcode.Infra, fmt.Errorf("local hosts of run %s: %w (Terraform's state says they exist: destroy the run and create it again)", rp.id, err))
	}
	log.Info("local hosts up", "hosts", len(c.Hosts), "subnet", rp.subnet, "bridge", rp.names.bridge, "took", time.Since(start).Round(time.Millisecond))
	return c, nil
}

// writeScript puts the embedded hosts.sh into the run directory: Terraform's
// state refers to this copy, so the run can be destroyed with the script that
// made it.
func writeScript(path string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("local provider: %w", err)
	}
	if err := atomicfile.Write(path, hostsScript, 0o755); err != nil {
		return fmt.Errorf("local provider: %w", err)
	}
	return nil
}

// cluster turns the module's output into the run's Cluster, checking it
// against what was asked for.
func (rp *runPlan) cluster(out []infra.Host) (*infra.Cluster, error) {
	var problems []string
	if len(out) != len(rp.hosts) {
		problems = append(problems, fmt.Sprintf("the module returned %d hosts, %d were asked for", len(out), len(rp.hosts)))
	}
	c := &infra.Cluster{
		Name:      rp.id,
		Provider:  ProviderName,
		CreatedAt: time.Now().UTC(),
		Meta: map[string]string{
			MetaRunDir: rp.runDir,
			MetaSubnet: rp.subnet.String(),
			MetaBridge: rp.names.bridge,
			MetaScript: rp.script,
		},
	}
	for i, h := range out {
		if i < len(rp.hosts) && (h.Name != rp.hosts[i].Name || !h.Has(infra.Role(rp.hosts[i].Role))) {
			h.Errors = append(h.Errors, fmt.Sprintf("expected host %s (%s) in this place", rp.hosts[i].Name, rp.hosts[i].Role))
		}
		if a, err := netip.ParseAddr(h.PublicIP); err == nil && !rp.subnet.Contains(a) {
			h.Errors = append(h.Errors, fmt.Sprintf("address %s is outside the subnet %s", a, rp.subnet))
		}
		h.Cloud, h.Region, h.Zone = "local", "local", "local"
		h.ProviderID = rp.names.namespace(h.Name)
		h.Base = hostDir(rp.runDir, h.Name)
		h.ServiceUser = ServiceUser
		h.Shared = true
		h.SSH = infra.SSH{User: "root", Port: 22, KeyFile: rp.keyFile}
		// The host key was generated for the run and is on this machine:
		// pin it now rather than trusting the first contact.
		if key, err := hostKey(h.Base); err != nil {
			h.Errors = append(h.Errors, err.Error())
		} else {
			h.SSH.HostKey = key
		}
		for _, e := range h.Errors {
			problems = append(problems, fmt.Sprintf("%s: %s", h.Name, e))
		}
		c.Hosts = append(c.Hosts, h)
	}
	if len(problems) > 0 {
		return nil, exitcode.Errorf(exitcode.Infra, "local hosts of run %s: %s", rp.id, strings.Join(problems, "; "))
	}
	return c, nil
}

// hostKey reads a host's public host key, in authorized_keys format without
// the comment.
func hostKey(base string) (string, error) {
	b, err := os.ReadFile(filepath.Join(base, "ssh", "ssh_host_ed25519_key.pub"))
	if err != nil {
		return "", fmt.Errorf("host key: %w", err)
	}
	k, _, _, _, err := ssh.ParseAuthorizedKey(b)
	if err != nil {
		return "", fmt.Errorf("host key: %w", err)
	}
	return strings.TrimSpace(string(ssh.MarshalAuthorizedKey(k))), nil
}

// waitSSH waits until every host's sshd sends its banner. hosts.sh already
// waited for each new sshd; this also covers a Create that found the hosts
// made earlier, which Terraform takes on trust from its state.
func waitSSH(ctx context.Context, hosts []infra.Host, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var (
		mu   sync.Mutex
		errs []error
		wg   sync.WaitGroup
	)
	for _, h := range hosts {
		wg.Go(func() {
			err := banner(ctx, h.Addr())
			for err != nil && ctx.Err() == nil {
				time.Sleep(100 * time.Millisecond)
				err = banner(ctx, h.Addr())
			}
			if err != nil {
				mu.Lock()
				errs = append(errs, fmt.Errorf("host %s (%s) does not answer SSH: %w (its sshd log: %s)",
					h.Name, h.Addr(), err, filepath.Join(h.Base, "ssh", "sshd.log")))
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	slices.SortFunc(errs, func(a, b error) int { return strings.Compare(a.Error(), b.Error()) })
	return errors.Join(errs...)
}

// banner dials addr and reads the SSH identification line.
func banner(ctx context.Context, addr string) error {
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return err
	}
	defer conn.Close()
	if dl, ok := ctx.Deadline(); ok {
		_ = conn.SetDeadline(dl)
	}
	line, err := bufio.NewReader(conn).ReadString('\n')
	if err != nil {
		return err
	}
	if !strings.HasPrefix(line, "SSH-") {
		return fmt.Errorf("not an SSH server: %q", strings.TrimSpace(line))
	}
	return nil
}
