package yugabyte

import (
	"fmt"
	"net"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/ybbench/ybbench/infra"
	"github.com/ybbench/ybbench/internal/exitcode"
)

// server is one of the two YugabyteDB server processes.
type server string

// The servers, named as their binaries.
const (
	master  server = "yb-master"
	tserver server = "yb-tserver"
)

// Ports (specs/yugabyte-deploy.md §6).
const (
	masterRPCPort  = 7100
	masterHTTPPort = 7000
	tserverRPCPort = 9100
	tserverHTTP    = 9000
	ysqlPort       = 5433
	ycqlPort       = 9042
)

// scope says which servers a flag applies to.
type scope uint8

const (
	onMaster  scope = 1 << iota
	onTServer scope = 1 << iota
	onBoth          = onMaster | onTServer
)

func (s scope) has(srv server) bool {
	switch srv {
	case master:
		return s&onMaster != 0
	case tserver:
		return s&onTServer != 0
	}
	return false
}

// flagInfo describes one server flag the flavor knows. refused, when set,
// is why FlavorSpec.Settings may not set it (the flavor sets it per host,
// or the flavor cannot honour it yet); the flag may still be one the
// flavor passes itself.
type flagInfo struct {
	scope   scope
	refused string
}

// Reasons a known flag is refused in Settings.
const (
	perHost      = "set per host by the flavor from cluster.json (private IP, data dirs, placement); change the cluster, not Settings"
	fromRF       = "set from FlavorSpec.RF"
	fixedPort    = "the flavor fixes the web server ports (7000 master, 9000 tserver) so readiness and metrics know where to look"
	fromDBAuth   = "set by the flavor from --db-auth (FlavorSpec.NoAuth): on by default, off only for the seeds' unauthenticated setup"
	noFlagfile   = "the flavor passes every flag on the command line; put the flags in Settings instead"
	noPerHostDir = "per-host directories are not supported yet (WAL goes to the data dirs, as by default)"
	noBroadcast  = "per-host broadcast addresses are not supported; the flavor binds private IPs"
)

// knownFlags are the server flags of specs/yugabyte-deploy.md §5.1, §5.2
// and §8 that the flavor knows, with the servers each applies to. Every
// flag the flavor can pass is here (flags_test.go checks them against the
// spec's tables); a Settings key naming any other flag is refused unless
// AllowUnknownFlags is given.
var knownFlags = map[string]flagInfo{
	// Set by the flavor from the cluster.
	"master_addresses":         {onMaster, perHost},
	"tserver_master_addrs":     {onTServer, perHost},
	"rpc_bind_addresses":       {onBoth, perHost},
	"fs_data_dirs":             {onBoth, perHost},
	"placement_cloud":          {onBoth, perHost},
	"placement_region":         {onBoth, perHost},
	"placement_zone":           {onBoth, perHost},
	"webserver_interface":      {onBoth, perHost},
	"pgsql_proxy_bind_address": {onTServer, perHost},
	"cql_proxy_bind_address":   {onTServer, perHost},
	"replication_factor":       {onMaster, fromRF},
	"webserver_port":           {onBoth, fixedPort},
	// Passed by default, may be overridden.
	"enable_ysql": {onBoth, ""},
	// Settings may add these (§5, §8).
	"max_clock_skew_usec":                    {onBoth, ""},
	"yb_num_shards_per_tserver":              {onBoth, ""},
	"enable_automatic_tablet_splitting":      {onBoth, ""},
	"durable_wal_write":                      {onBoth, ""},
	"use_memory_defaults_optimized_for_ysql": {onBoth, ""},
	"pgsql_proxy_webserver_port":             {onTServer, ""},
	"cql_proxy_webserver_port":               {onTServer, ""},
	"ysql_hba_conf_csv":                      {onTServer, ""},
	"ysql_pg_conf_csv":                       {onTServer, ""},
	"ysql_max_connections":                   {onTServer, ""},
	// Set by the flavor from FlavorSpec.NoAuth (§5.2, D10).
	"ysql_enable_auth":             {onTServer, fromDBAuth},
	"use_cassandra_authentication": {onTServer, fromDBAuth},
	// Known but refused.
	"flagfile":                   {onBoth, noFlagfile},
	"fs_wal_dirs":                {onBoth, noPerHostDir},
	"server_broadcast_addresses": {onBoth, noBroadcast},
}

var flagName = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)

// hbaTrust finds a trust method in a ysql_hba.conf rule list.
var hbaTrust = regexp.MustCompile(`(?i)(^|[\s,"])trust($|[\s,"])`)

// flagSettings are FlavorSpec.Settings sorted out per server: flag name to
// value (serverFlags renders them sorted by name).
type flagSettings struct {
	master, tserver map[string]string
	// unknown lists the unknown flags let through by AllowUnknownFlags.
	unknown []string
}

// parseSettings checks FlavorSpec.Settings. A key is a flag name (with or
// without a leading "--"), applied to every server the flag belongs to, or
// "master.<flag>" / "tserver.<flag>" for one server; the prefixed form wins
// over the bare one for its server. Every problem is reported at once.
//
// With auth (not FlavorSpec.NoAuth), a ysql_hba_conf_csv with a trust rule
// is refused: it would let clients in without the generated password.
func parseSettings(settings map[string]string, allowUnknown, auth bool) (flagSettings, error) {
	fs := flagSettings{master: map[string]string{}, tserver: map[string]string{}}
	keys := make([]string, 0, len(settings))
	for k := range settings {
		keys = append(keys, k)
	}
	// Bare keys first, so that a prefixed key overrides them.
	sort.Slice(keys, func(i, j int) bool {
		pi, pj := strings.Contains(keys[i], "."), strings.Contains(keys[j], ".")
		if pi != pj {
			return !pi
		}
		return keys[i] < keys[j]
	})
	var problems []string
	unknown := map[string]bool{}
	for _, key := range keys {
		value := settings[key]
		var only server
		name := key
		switch {
		case strings.HasPrefix(key, "master."):
			only, name = master, strings.TrimPrefix(key, "master.")
		case strings.HasPrefix(key, "tserver."):
			only, name = tserver, strings.TrimPrefix(key, "tserver.")
		}
		name = strings.TrimPrefix(name, "--")
		if !flagName.MatchString(name) {
			problems = append(problems, fmt.Sprintf("setting %q: %q is not a flag name (lower case letters, digits and _; optionally prefixed master. or tserver.)", key, name))
			continue
		}
		if strings.ContainsRune(value, 0) {
			problems = append(problems, fmt.Sprintf("setting %q: the value contains a NUL byte", key))
			continue
		}
		info, known := knownFlags[name]
		if auth && name == "ysql_hba_conf_csv" && hbaTrust.MatchString(value) {
			problems = append(problems, fmt.Sprintf("setting %q: a trust rule lets clients in without a password, and the cluster is authenticated (--db-auth=on): use md5 or scram-sha-256 rules, or --db-auth=off for the seeds' open setup", key))
			continue
		}
		switch {
		case known && info.refused != "":
			problems = append(problems, fmt.Sprintf("setting %q: --%s cannot be set in Settings: %s", key, name, info.refused))
			continue
		case known && only != "" && !info.scope.has(only):
			problems = append(problems, fmt.Sprintf("setting %q: --%s is not a %s flag (specs/yugabyte-deploy.md §5)", key, name, only))
			continue
		case !known && !allowUnknown:
			problems = append(problems, fmt.Sprintf("setting %q: --%s is not a flag this flavor knows (the flags of specs/yugabyte-deploy.md §5 and §8); check the name, or allow unknown flags explicitly (yugabyte.AllowUnknownFlags)", key, name))
			continue
		case !known:
			info = flagInfo{scope: onBoth}
			unknown[name] = true
		}
		if only == master || (only == "" && info.scope.has(master)) {
			fs.master[name] = value
		}
		if only == tserver || (only == "" && info.scope.has(tserver)) {
			fs.tserver[name] = value
		}
	}
	for n := range unknown {
		fs.unknown = append(fs.unknown, n)
	}
	sort.Strings(fs.unknown)
	// enable_ysql must parse, and match on both servers (§5.1).
	ysqlM, errM := strconv.ParseBool(orDefault(fs.master["enable_ysql"], "true"))
	ysqlT, errT := strconv.ParseBool(orDefault(fs.tserver["enable_ysql"], "true"))
	switch {
	case errM != nil:
		problems = append(problems, fmt.Sprintf("setting enable_ysql: %q is not a boolean", fs.master["enable_ysql"]))
	case errT != nil:
		problems = append(problems, fmt.Sprintf("setting enable_ysql: %q is not a boolean", fs.tserver["enable_ysql"]))
	case ysqlM != ysqlT:
		problems = append(problems, "settings: enable_ysql must be the same on masters and tservers (specs/yugabyte-deploy.md §5.1)")
	}
	if len(problems) > 0 {
		return fs, exitcode.Errorf(exitcode.Config, "yugabyte: bad Settings:\n  %s", strings.Join(problems, "\n  "))
	}
	return fs, nil
}

func orDefault(v, d string) string {
	if v == "" {
		return d
	}
	return v
}

// ysqlEnabled reports whether the tservers serve YSQL.
func (fs flagSettings) ysqlEnabled() bool {
	b, err := strconv.ParseBool(orDefault(fs.tserver["enable_ysql"], "true"))
	return err != nil || b
}

// topology is what the per-host flags are computed from.
type topology struct {
	masters  []infra.Host // the first RF db hosts
	rf       int
	settings flagSettings
	// auth turns on password authentication on both APIs (the default;
	// off with FlavorSpec.NoAuth).
	auth bool
}

func hostPort(ip string, port int) string { return net.JoinHostPort(ip, strconv.Itoa(port)) }

func (t topology) masterAddrs() string {
	addrs := make([]string, len(t.masters))
	for i, m := range t.masters {
		addrs[i] = hostPort(m.PrivateIP, masterRPCPort)
	}
	return strings.Join(addrs, ",")
}

// serverFlag is one --name=value.
type serverFlag struct{ name, value string }

func (f serverFlag) String() string { return "--" + f.name + "=" + f.value }

// serverFlags returns the flags of one server on one host, in a fixed
// order: the flavor's own, then Settings sorted by name (a Settings value
// for a flag the flavor passes by default replaces it in place). This is a
// pure function of the host and the topology.
func serverFlags(srv server, h infra.Host, t topology) []serverFlag {
	var out []serverFlag
	add := func(name, value string) { out = append(out, serverFlag{name, value}) }
	dirs := strings.Join(dataDirs(h), ",")
	switch srv {
	case master:
		add("master_addresses", t.masterAddrs())
		add("rpc_bind_addresses", hostPort(h.PrivateIP, masterRPCPort))
		add("fs_data_dirs", dirs)
		add("replication_factor", strconv.Itoa(t.rf))
	case tserver:
		add("tserver_master_addrs", t.masterAddrs())
		add("rpc_bind_addresses", hostPort(h.PrivateIP, tserverRPCPort))
		add("fs_data_dirs", dirs)
	}
	if h.Cloud != "" {
		add("placement_cloud", h.Cloud)
	}
	if h.Region != "" {
		add("placement_region", h.Region)
	}
	if h.Zone != "" {
		add("placement_zone", h.Zone)
	}
	add("webserver_interface", h.PrivateIP)
	if srv == master {
		add("webserver_port", strconv.Itoa(masterHTTPPort))
	} else {
		add("webserver_port", strconv.Itoa(tserverHTTP))
	}
	add("enable_ysql", "true")
	if srv == tserver {
		add("pgsql_proxy_bind_address", hostPort(h.PrivateIP, ysqlPort))
		add("cql_proxy_bind_address", hostPort(h.PrivateIP, ycqlPort))
		if t.auth {
			// Passwords required on YSQL and YCQL (specs/yugabyte-deploy.md
			// §5.2 and §7, D10, D13, D14); the default passwords are
			// replaced right after the start (auth.sh).
			add("ysql_enable_auth", "true")
			add("use_cassandra_authentication", "true")
		}
	}
	settings := t.settings.master
	if srv == tserver {
		settings = t.settings.tserver
	}
	names := make([]string, 0, len(settings))
	for n := range settings {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		replaced := false
		for i := range out {
			if out[i].name == n {
				out[i].value, replaced = settings[n], true
			}
		}
		if !replaced {
			add(n, settings[n])
		}
	}
	return out
}

func flagStrings(fl []serverFlag) []string {
	out := make([]string, len(fl))
	for i, f := range fl {
		out[i] = f.String()
	}
	return out
}
