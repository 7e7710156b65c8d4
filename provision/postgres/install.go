package postgres

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"

	"github.com/ybbench/ybbench/infra"
	"github.com/ybbench/ybbench/internal/exitcode"
	"github.com/ybbench/ybbench/provision"
)

// Install prepares every db host, starts the primary, then the replicas,
// and waits until every replica streams.
func (f *Flavor) Install(ctx context.Context, r provision.Runner, c *infra.Cluster, s provision.FlavorSpec) (*provision.Deployment, error) {
	dep, err := f.install(ctx, r, c, s)
	return dep, exitcode.Wrap(exitcode.Provision, err)
}

// record prefixes of the node script's output.
const (
	binRecord    = "bin="
	changeRecord = "YBCHANGE "
)

// installPlan is a checked FlavorSpec on a checked cluster: what the steps
// of an install share.
type installPlan struct {
	dbs      []infra.Host
	replicas []string // the names of dbs[1:]; dbs[0] is the primary
	port     int
	database string
	dbUser   string
	// overrides are the run's postgresql.conf parameters.
	overrides map[string]string
	run       string // the run owning the hosts' own directories
	version   string // ybbench's, in the marker
	hba       []string
	noAuth    bool
	secrets   string // FlavorSpec.SecretsDir
	par       provision.ParallelOptions
	log       *slog.Logger
}

// passwords are the run's generated passwords, as each host needs them.
type passwords struct {
	// repl is the replication password itself: a replica logs in with it.
	repl string
	// dbVerifier and replVerifier are the SCRAM verifiers of the bench
	// and replication passwords: the primary gets them, never the
	// passwords, so that these reach no file, environment or command
	// line on it.
	dbVerifier, replVerifier string
}

// prepared is what the node script of one host said.
type prepared struct {
	bin     string
	changes []string
}

func (f *Flavor) install(ctx context.Context, r provision.Runner, c *infra.Cluster, s provision.FlavorSpec) (*provision.Deployment, error) {
	p, err := planInstall(c, s)
	if err != nil {
		return nil, err
	}
	pw, err := loadPasswords(s.SecretsDir)
	if err != nil {
		return nil, err
	}
	// 1. Every db host: binaries, service user, the run's own directory.
	preps, changes, err := prepareHosts(ctx, r, p)
	if err != nil {
		return failed(changes, err)
	}
	// 2 and 3. The primary, then the replicas.
	pn, err := f.startCluster(ctx, r, p, preps, pw)
	if err != nil {
		return failed(changes, err)
	}
	dep, err := deployment(ctx, r, p, pn, changes)
	if err != nil {
		return failed(changes, err)
	}
	return dep, nil
}

// failed keeps what the hosts changed (a package, a user) in the result
// of a failed install, so that the run's ledger records it all the same.
func failed(changes map[string][]string, err error) (*provision.Deployment, error) {
	if len(changes) == 0 {
		return nil, err
	}
	return &provision.Deployment{Flavor: "postgres", HostChanges: changes}, err
}

// planInstall checks the spec and the cluster before any host is touched
// (exit code 2: bad configuration).
func planInstall(c *infra.Cluster, s provision.FlavorSpec) (installPlan, error) {
	p := installPlan{log: s.Logger, noAuth: s.NoAuth, secrets: s.SecretsDir,
		par: provision.ParallelOptions{Limit: s.Parallel, FailFast: true}}
	if p.log == nil {
		p.log = slog.New(slog.DiscardHandler)
	}
	p.dbs = c.ByRole(infra.RoleDB)
	if len(p.dbs) == 0 {
		return p, exitcode.Errorf(exitcode.Config, "postgres: the cluster has no db host")
	}
	var err error
	p.port, p.database, p.dbUser, p.overrides, err = settings(s)
	if err != nil {
		return p, exitcode.Wrap(exitcode.Config, err)
	}
	if problems := provision.CheckDBHosts(p.dbs); len(problems) > 0 {
		return p, exitcode.Errorf(exitcode.Config, "postgres: refusing the db hosts:\n  %s", strings.Join(problems, "\n  "))
	}
	for _, h := range p.dbs {
		if err := checkSocketPath(h, p.port); err != nil {
			return p, err
		}
	}
	p.run = s.RunID
	if p.run == "" {
		p.run = c.Name // the pipeline names every cluster after its run
	}
	p.version = s.ToolVersion
	if p.version == "" {
		p.version = "unknown"
	}
	if p.hba, err = HBA(c, p.database, p.dbUser, s.NoAuth); err != nil {
		return p, err
	}
	for _, h := range p.dbs[1:] {
		p.replicas = append(p.replicas, h.Name)
	}
	return p, nil
}

// loadPasswords reads (or makes) the run's passwords in the secrets
// directory: a run that cannot keep them installs nothing.
func loadPasswords(secrets string) (passwords, error) {
	var pw passwords
	db, _, err := provision.Secret(secrets, "db-password")
	if err != nil {
		return pw, err
	}
	if pw.repl, _, err = provision.Secret(secrets, "replication-password"); err != nil {
		return pw, err
	}
	if pw.dbVerifier, err = scramVerifier(db); err != nil {
		return pw, err
	}
	if pw.replVerifier, err = scramVerifier(pw.repl); err != nil {
		return pw, err
	}
	return pw, nil
}

// prepareHosts runs the node script on every db host at once. What the
// hosts changed outside the run's directories (by host name) comes back
// even when one of them failed.
func prepareHosts(ctx context.Context, r provision.Runner, p installPlan) ([]prepared, map[string][]string, error) {
	preps, err := provision.Parallel(ctx, p.dbs, p.par, func(ctx context.Context, h infra.Host) (prepared, error) {
		return prepareHost(ctx, r, h, p)
	})
	changes := map[string][]string{}
	for i, h := range p.dbs {
		if i < len(preps) && len(preps[i].changes) > 0 {
			changes[h.Name] = preps[i].changes
		}
	}
	return preps, changes, err
}

// prepareHost installs the binaries, the service user and the run's own
// directory on one host, and finds the PostgreSQL binaries.
func prepareHost(ctx context.Context, r provision.Runner, h infra.Host, p installPlan) (prepared, error) {
	script, err := render("node", newNode(h, p.run, p.version))
	if err != nil {
		return prepared{}, err
	}
	res, err := r.Run(ctx, h, script, provision.Step("postgres-node"))
	if err != nil {
		return prepared{}, err
	}
	var out prepared
	for _, l := range strings.Split(string(res.Stdout), "\n") {
		if b, ok := strings.CutPrefix(l, binRecord); ok {
			out.bin = b
		} else if ch, ok := strings.CutPrefix(l, changeRecord); ok {
			out.changes = append(out.changes, ch)
		}
	}
	out.changes = append(out.changes, provision.CreatedParents(res.Stdout)...)
	if err := provision.OwnError(h, res); err != nil {
		// What the host changed before the failure is still said.
		for _, ch := range out.changes {
			p.log.Warn("changed on the host before the failure", "host", h.Name, "change", ch)
		}
		return out, err
	}
	if out.bin == "" {
		return out, fmt.Errorf("postgres: %s: could not find the PostgreSQL binaries", h.Name)
	}
	return out, nil
}

// startCluster starts the primary, then the replicas from a base backup
// of it, then asks for the quorum and waits until every replica streams.
// It returns the primary's node, which later scripts on it take.
func (f *Flavor) startCluster(ctx context.Context, r provision.Runner, p installPlan, preps []prepared, pw passwords) (node, error) {
	primary := p.dbs[0]
	p.log.Info("starting the primary", "host", primary.Name)
	pn := newNode(primary, p.run, p.version)
	pn.Bin, pn.Port, pn.DBUser, pn.Database, pn.Quorum, pn.HBA = preps[0].bin, p.port, p.dbUser, p.database, Quorum(p.replicas), p.hba
	pn.Conf = ConfLines(primary, pn.Sock, p.port, len(p.replicas), p.overrides)
	if err := runScript(ctx, r, primary, "primary", pn, pw.dbVerifier+"\n"+pw.replVerifier+"\n"); err != nil {
		return pn, err
	}
	if len(p.dbs) == 1 {
		return pn, nil
	}
	if err := startReplicas(ctx, r, p, preps, pw.repl); err != nil {
		return pn, err
	}
	if err := runScript(ctx, r, primary, "quorum", pn, ""); err != nil {
		return pn, err
	}
	return pn, f.waitStreaming(ctx, r, primary, pn, p.replicas)
}

// startReplicas builds and starts every replica at once.
func startReplicas(ctx context.Context, r provision.Runner, p installPlan, preps []prepared, replPassword string) error {
	_, err := provision.Parallel(ctx, p.dbs[1:], p.par, func(ctx context.Context, h infra.Host) (struct{}, error) {
		n := newNode(h, p.run, p.version)
		n.Bin, n.Port, n.Primary = preps[indexOf(p.dbs, h.Name)].bin, p.port, p.dbs[0].PrivateIP
		n.Conf = ConfLines(h, n.Sock, p.port, len(p.replicas), p.overrides)
		// The replication password goes to the replica's pgpass
		// (0600, the service user's) through the script's stdin.
		return struct{}{}, runScript(ctx, r, h, "replica", n, replPassword+"\n")
	})
	return err
}

func indexOf(hosts []infra.Host, name string) int {
	for i, h := range hosts {
		if h.Name == name {
			return i
		}
	}
	return 0
}

// deployment describes the running cluster: its endpoint, the settings the
// primary reports, the topology and access rules, the server processes.
func deployment(ctx context.Context, r provision.Runner, p installPlan, pn node, changes map[string][]string) (*provision.Deployment, error) {
	primary := p.dbs[0]
	dep := &provision.Deployment{Flavor: "postgres", User: p.dbUser, PasswordFile: filepath.Join(p.secrets, "db-password"),
		Database: p.database, Settings: map[string]string{}}
	if len(changes) > 0 {
		dep.HostChanges = changes
	}
	dep.YSQL = []provision.Endpoint{{Host: primary.Name, Addr: primary.PrivateIP, Port: p.port}}
	st, err := settingsOf(ctx, r, primary, pn)
	if err != nil {
		return nil, err
	}
	for k, v := range st {
		dep.Settings[k] = v
	}
	dep.Version = st["server_version"]
	dep.Settings["topology"] = fmt.Sprintf("primary %s, streaming replicas %s, synchronous commit to a quorum", primary.Name, strings.Join(p.replicas, ", "))
	if p.noAuth {
		dep.Settings["auth"] = "off"
	} else {
		dep.Settings["auth"] = "scram-sha-256"
	}
	dep.Settings["pg_hba"] = strings.Join(p.hba, "; ")
	for _, h := range p.dbs {
		dep.Processes = append(dep.Processes, provision.Process{Host: h.Name, Name: "postgres", PIDFile: filepath.Join(dir(h), "run", "postgres.pid")})
	}
	return dep, nil
}
