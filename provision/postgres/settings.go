package postgres

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/ybbench/ybbench/provision"
)

// ident is what the flavor takes as a database, role or parameter name:
// plain enough to be written into SQL and postgresql.conf unquoted.
var ident = regexp.MustCompile(`^[a-z_][a-z0-9_]{0,62}$`)

// Settings a run may give (FlavorSpec.Settings): port, database, user,
// and any postgresql.conf parameter as "conf.<name>".
func settings(s provision.FlavorSpec) (port int, database, user string, conf map[string]string, err error) {
	port, database, user = DefaultPort, DefaultDatabase, DefaultDBUser
	conf = map[string]string{}
	for k, v := range s.Settings {
		switch {
		case k == "port":
			port, err = strconv.Atoi(v)
			if err != nil || port < 1 || port > 65535 {
				return 0, "", "", nil, fmt.Errorf("postgres: port %q is not a port", v)
			}
		case k == "database":
			database = v
		case k == "user":
			user = v
		case strings.HasPrefix(k, "conf."):
			name := strings.TrimPrefix(k, "conf.")
			if !ident.MatchString(name) || strings.ContainsAny(v, "'\n\\") {
				return 0, "", "", nil, fmt.Errorf("postgres: setting %s=%q is not a safe postgresql.conf line", name, v)
			}
			conf[name] = v
		default:
			return 0, "", "", nil, fmt.Errorf("postgres: unknown setting %q (want port, database, user or conf.<parameter>)", k)
		}
	}
	if !ident.MatchString(database) || !ident.MatchString(user) {
		return 0, "", "", nil, fmt.Errorf("postgres: database %q and user %q must be plain lower-case names", database, user)
	}
	return port, database, user, conf, nil
}
