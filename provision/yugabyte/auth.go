package yugabyte

import (
	"context"
	"fmt"
	"log/slog"
	"strings"

	"github.com/ybbench/ybbench/infra"
	"github.com/ybbench/ybbench/provision"
)

// The credentials of an authenticated cluster. One user, with one
// password, serves both APIs: the YSQL superuser yugabyte (whose default
// password is replaced) is also made a YCQL superuser, so that the
// deployment's User and PasswordFile are right for a YSQL and a YCQL
// profile alike. The YCQL default superuser cassandra gets a password of
// its own, which nothing uses: it only closes the default.
//
// The bench user is the superuser, not a role owning only its database:
// the stand-in tarball of the tests cannot check what a real server would
// make of a narrower role's grants, so none is made here.
const (
	dbUser = "yugabyte"
	// PasswordFile is the clients' password in FlavorSpec.SecretsDir.
	PasswordFile = "yugabyte-password"
	// CassandraPasswordFile is the YCQL cassandra role's new password.
	CassandraPasswordFile = "yugabyte-ycql-cassandra-password"
)

// setPasswords replaces the default passwords through the first db host's
// tserver, then has every tserver check a login with the new ones (the
// authenticated part of the readiness check). The passwords reach the
// hosts on the scripts' standard input only.
func (f *Flavor) setPasswords(ctx context.Context, r provision.Runner, p plan, software map[string]string, dep *provision.Deployment, log *slog.Logger) error {
	pw, pwFile, err := provision.Secret(p.secrets, PasswordFile)
	if err != nil {
		return err
	}
	cpw, _, err := provision.Secret(p.secrets, CassandraPasswordFile)
	if err != nil {
		return err
	}
	run := func(ctx context.Context, h infra.Host) (records, error) {
		script, err := renderAuth(authData{Host: h.Name, Software: software[h.Name], Addr: h.PrivateIP, YSQLPort: ysqlPort, YCQLPort: ycqlPort,
			YSQL: p.settings.ysqlEnabled(), User: dbUser, Timeout: max(1, int(f.cfg.readyTimeout.Seconds())), layout: layoutOf(h)})
		if err != nil {
			return nil, err
		}
		return runScriptIn(ctx, r, h, "yugabyte-auth", script, strings.NewReader(pw+"\n"+cpw+"\n"))
	}
	// The roles are the cluster's: one host changes them, then every
	// host (the first again, harmlessly) checks them.
	first := p.db[0]
	recs, err := run(ctx, first)
	if err != nil {
		return fmt.Errorf("yugabyte: setting the passwords through %s: %w", first.Name, err)
	}
	for _, k := range []string{"ysql_password", "ycql_role", "ycql_password"} {
		if v, ok := recs.Last(k); ok {
			dep.Settings["auth."+k] = v
			log.Info("password", "what", k, "result", v)
		}
	}
	if len(p.db) > 1 {
		if _, err := provision.Parallel(ctx, p.db[1:], provision.ParallelOptions{}, run); err != nil {
			return fmt.Errorf("yugabyte: checking the passwords on every tserver: %w", err)
		}
	}
	dep.User, dep.PasswordFile = dbUser, pwFile
	dep.Settings["auth"] = "on: --ysql_enable_auth=true --use_cassandra_authentication=true; default passwords replaced by generated ones"
	dep.Settings["auth.ycql_user"] = dbUser + " (YCQL superuser, same password file as YSQL)"
	dep.Settings["auth.login_checked"] = fmt.Sprintf("every tserver (%d): the generated password logs in, the default is refused", len(p.db))
	return nil
}
