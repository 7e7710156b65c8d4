package yugabyte

import (
	"sort"
	"strings"
	"testing"

	"github.com/ybbench/ybbench/infra"
	"github.com/ybbench/ybbench/internal/exitcode"
)

// specFlags is the union of the flag tables of specs/yugabyte-deploy.md
// §5.1 (yb-master), §5.2 (yb-tserver) and §8 (settings that change
// benchmark comparability), copied from the spec by hand: it is the
// yardstick for every flag the flavor can pass, so it must not be derived
// from the flavor's own table.
var specFlags = map[string]string{
	// §5.1 yb-master
	"master_addresses":                       "§5.1",
	"rpc_bind_addresses":                     "§5.1, §5.2",
	"server_broadcast_addresses":             "§5.1",
	"fs_data_dirs":                           "§5.1, §5.2",
	"fs_wal_dirs":                            "§5.1",
	"replication_factor":                     "§5.1",
	"placement_cloud":                        "§5.1, §5.2",
	"placement_region":                       "§5.1, §5.2",
	"placement_zone":                         "§5.1, §5.2",
	"webserver_interface":                    "§5.1, §5.2",
	"webserver_port":                         "§5.1, §5.2",
	"enable_ysql":                            "§5.1, §5.2",
	"max_clock_skew_usec":                    "§5.1, §5.2",
	"yb_num_shards_per_tserver":              "§5.1, §8",
	"enable_automatic_tablet_splitting":      "§5.1",
	"durable_wal_write":                      "§5.1, §8",
	"use_memory_defaults_optimized_for_ysql": "§5.1, §5.2, §8",
	"flagfile":                               "§5.1",
	// §5.2 yb-tserver
	"tserver_master_addrs":         "§5.2",
	"pgsql_proxy_bind_address":     "§5.2",
	"pgsql_proxy_webserver_port":   "§5.2",
	"cql_proxy_bind_address":       "§5.2",
	"cql_proxy_webserver_port":     "§5.2",
	"ysql_enable_auth":             "§5.2",
	"ysql_hba_conf_csv":            "§5.2",
	"ysql_pg_conf_csv":             "§5.2",
	"ysql_max_connections":         "§5.2",
	"use_cassandra_authentication": "§5.2",
}

// TestKnownFlagsAreTheSpecs checks every flag the flavor knows, and so
// every flag Settings can pass, against the spec's tables.
func TestKnownFlagsAreTheSpecs(t *testing.T) {
	for name := range knownFlags {
		if _, ok := specFlags[name]; !ok {
			t.Errorf("the flavor knows --%s, which is in none of the flag tables of specs/yugabyte-deploy.md §5 and §8", name)
		}
	}
}

// allPassableSettings sets every flag Settings may set, with a value.
func allPassableSettings() map[string]string {
	s := map[string]string{}
	for name, info := range knownFlags {
		if info.refused == "" {
			s[name] = "1"
		}
	}
	s["enable_ysql"] = "true"
	return s
}

// TestEveryRenderedFlagIsInTheSpec renders the flags of both servers on
// every host of a sample cluster, with no Settings and with every settable
// flag set, and checks each flag name against the spec's tables.
func TestEveryRenderedFlagIsInTheSpec(t *testing.T) {
	all, err := parseSettings(allPassableSettings(), false, true)
	if err != nil {
		t.Fatal(err)
	}
	c := sampleCluster()
	for _, settings := range []flagSettings{{}, all} {
		topo := sampleTopology(settings)
		for _, h := range c.ByRole(infra.RoleDB) {
			for _, srv := range []server{master, tserver} {
				seen := map[string]bool{}
				for _, f := range serverFlags(srv, h, topo) {
					if _, ok := specFlags[f.name]; !ok {
						t.Errorf("%s on %s gets --%s, which is in no flag table of specs/yugabyte-deploy.md §5, §8", srv, h.Name, f.name)
					}
					if seen[f.name] {
						t.Errorf("%s on %s gets --%s twice", srv, h.Name, f.name)
					}
					seen[f.name] = true
				}
			}
		}
	}
}

func flagMap(fl []serverFlag) map[string]string {
	m := map[string]string{}
	for _, f := range fl {
		m[f.name] = f.value
	}
	return m
}

func TestServerFlags(t *testing.T) {
	c := sampleCluster()
	db1, _ := c.Host("db1")
	db3, _ := c.Host("db3")
	topo := sampleTopology(flagSettings{})
	m := flagMap(serverFlags(master, *db1, topo))
	want := map[string]string{
		"master_addresses":    "10.0.0.1:7100,10.0.0.2:7100,10.0.0.3:7100",
		"rpc_bind_addresses":  "10.0.0.1:7100",
		"fs_data_dirs":        "/mnt/d0/ybbench/yugabyte-data,/mnt/d1/ybbench/yugabyte-data",
		"replication_factor":  "3",
		"placement_cloud":     "aws",
		"placement_region":    "us-west-2",
		"placement_zone":      "us-west-2a",
		"webserver_interface": "10.0.0.1",
		"webserver_port":      "7000",
		"enable_ysql":         "true",
	}
	if !equalMaps(m, want) {
		t.Errorf("master flags on db1:\n got %v\nwant %v", m, want)
	}
	ts := flagMap(serverFlags(tserver, *db3, topo))
	want = map[string]string{
		"tserver_master_addrs":     "10.0.0.1:7100,10.0.0.2:7100,10.0.0.3:7100",
		"rpc_bind_addresses":       "10.0.0.3:9100",
		"fs_data_dirs":             "/var/lib/ybbench/db3/ybbench/yugabyte-data",
		"placement_cloud":          "aws",
		"placement_region":         "us-west-2",
		"placement_zone":           "us-west-2a",
		"webserver_interface":      "10.0.0.3",
		"webserver_port":           "9000",
		"enable_ysql":              "true",
		"pgsql_proxy_bind_address": "10.0.0.3:5433",
		"cql_proxy_bind_address":   "10.0.0.3:9042",
		// Authentication on by default (specs/yugabyte-deploy.md §5.2, §7).
		"ysql_enable_auth":             "true",
		"use_cassandra_authentication": "true",
	}
	if !equalMaps(ts, want) {
		t.Errorf("tserver flags on db3:\n got %v\nwant %v", ts, want)
	}
	// --db-auth=off: the seeds' flags, without either auth flag.
	open := topo
	open.auth = false
	ts = flagMap(serverFlags(tserver, *db3, open))
	delete(want, "ysql_enable_auth")
	delete(want, "use_cassandra_authentication")
	if !equalMaps(ts, want) {
		t.Errorf("tserver flags on db3 without auth:\n got %v\nwant %v", ts, want)
	}

	// IPv6 addresses are bracketed; empty placement is left to the
	// server's defaults.
	v6 := infra.Host{Name: "v6", PrivateIP: "fd00::1", Base: "/b", ServiceUser: "yb"}
	m = flagMap(serverFlags(master, v6, topology{masters: []infra.Host{v6}, rf: 1}))
	if m["rpc_bind_addresses"] != "[fd00::1]:7100" || m["master_addresses"] != "[fd00::1]:7100" {
		t.Errorf("IPv6: %v", m)
	}
	if _, ok := m["placement_cloud"]; ok {
		t.Errorf("placement_cloud passed for a host without a cloud: %v", m)
	}
}

func equalMaps(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

func TestSettings(t *testing.T) {
	fs, err := parseSettings(map[string]string{
		"yb_num_shards_per_tserver":  "8",
		"tserver.durable_wal_write":  "true",
		"--max_clock_skew_usec":      "250000",
		"ysql_max_connections":       "400",
		"master.max_clock_skew_usec": "300000",
		"enable_ysql":                "false",
	}, false, true)
	if err != nil {
		t.Fatal(err)
	}
	wantM := map[string]string{"yb_num_shards_per_tserver": "8", "max_clock_skew_usec": "300000", "enable_ysql": "false"}
	wantT := map[string]string{"yb_num_shards_per_tserver": "8", "max_clock_skew_usec": "250000", "durable_wal_write": "true", "ysql_max_connections": "400", "enable_ysql": "false"}
	if !equalMaps(fs.master, wantM) || !equalMaps(fs.tserver, wantT) {
		t.Errorf("master %v\ntserver %v", fs.master, fs.tserver)
	}
	if fs.ysqlEnabled() {
		t.Error("enable_ysql=false, yet YSQL counts as enabled")
	}
	// A default the flavor passes is replaced in place, an added one comes
	// after the flavor's own, sorted.
	c := sampleCluster()
	db2, _ := c.Host("db2")
	fl := flagStrings(serverFlags(tserver, *db2, sampleTopology(fs)))
	got := strings.Join(fl, " ")
	if !strings.Contains(got, "--enable_ysql=false --pgsql_proxy_bind_address") ||
		!strings.HasSuffix(got, "--durable_wal_write=true --max_clock_skew_usec=250000 --yb_num_shards_per_tserver=8 --ysql_max_connections=400") {
		t.Errorf("tserver flags: %s", got)
	}
}

func TestSettingsRefused(t *testing.T) {
	cases := []struct {
		key, value, want string
	}{
		{"yb_num_shard_per_tserver", "8", "is not a flag this flavor knows"},
		{"use_node_to_node_encryption", "true", "allow unknown flags explicitly"},
		{"rpc_bind_addresses", "0.0.0.0:7100", "set per host by the flavor"},
		{"master.master_addresses", "x", "set per host by the flavor"},
		{"replication_factor", "1", "FlavorSpec.RF"},
		{"webserver_port", "8000", "fixes the web server ports"},
		{"ysql_enable_auth", "false", "set by the flavor from --db-auth"},
		{"tserver.use_cassandra_authentication", "false", "set by the flavor from --db-auth"},
		{"ysql_hba_conf_csv", "host all all 0.0.0.0/0 trust", "a trust rule lets clients in without a password"},
		{"tserver.ysql_hba_conf_csv", `local all all md5,"host all all ::0/0 TRUST"`, "a trust rule"},
		{"flagfile", "/etc/yb.conf", "on the command line"},
		{"master.ysql_max_connections", "10", "not a yb-master flag"},
		{"Enable-YSQL", "true", "not a flag name"},
		{"master.", "x", "not a flag name"},
		{"enable_ysql", "maybe", "not a boolean"},
		{"master.enable_ysql", "false", "must be the same on masters and tservers"},
		{"durable_wal_write", "a\x00b", "NUL"},
	}
	for _, c := range cases {
		t.Run(c.key, func(t *testing.T) {
			_, err := parseSettings(map[string]string{c.key: c.value}, false, true)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want an error containing %q", err, c.want)
			}
			if exitcode.Of(err) != exitcode.Config {
				t.Errorf("exit code %d, want %d", exitcode.Of(err), exitcode.Config)
			}
		})
	}
	// Without auth (--db-auth=off) the seeds' trust rules are allowed.
	if _, err := parseSettings(map[string]string{"ysql_hba_conf_csv": "host all all 0.0.0.0/0 trust"}, false, false); err != nil {
		t.Errorf("a trust rule without auth: %v", err)
	}
	// Every problem is reported at once.
	_, err := parseSettings(map[string]string{"nope_one": "1", "nope_two": "2"}, false, true)
	if err == nil || !strings.Contains(err.Error(), "nope_one") || !strings.Contains(err.Error(), "nope_two") {
		t.Errorf("both problems should be reported: %v", err)
	}
}

func TestSettingsUnknownAllowed(t *testing.T) {
	fs, err := parseSettings(map[string]string{
		"use_node_to_node_encryption":   "true",
		"tserver.ysql_num_shards_pilot": "2",
	}, true, true)
	if err != nil {
		t.Fatal(err)
	}
	if fs.master["use_node_to_node_encryption"] != "true" || fs.tserver["use_node_to_node_encryption"] != "true" {
		t.Errorf("a bare unknown flag goes to both servers: %v %v", fs.master, fs.tserver)
	}
	if _, ok := fs.master["ysql_num_shards_pilot"]; ok || fs.tserver["ysql_num_shards_pilot"] != "2" {
		t.Errorf("a prefixed unknown flag goes to its server only: %v %v", fs.master, fs.tserver)
	}
	sort.Strings(fs.unknown)
	if strings.Join(fs.unknown, ",") != "use_node_to_node_encryption,ysql_num_shards_pilot" {
		t.Errorf("unknown = %v", fs.unknown)
	}
	// Refused flags stay refused with the escape.
	if _, err := parseSettings(map[string]string{"fs_data_dirs": "/x"}, true, true); err == nil {
		t.Error("fs_data_dirs accepted with AllowUnknownFlags")
	}
}
