package pipeline

import (
	"fmt"
	"strings"

	"github.com/ybbench/ybbench/collect/bottleneck"
	"github.com/ybbench/ybbench/pipeline/parts"
	"github.com/ybbench/ybbench/profiles"
	"github.com/ybbench/ybbench/record/repetition"
)

// Setting is one row of the settings table: the one place a run setting is
// described. The spec file's key, the YBBENCH_* variable, the flag and its
// help text, docs/settings.md's table, parsing and the checks that need no other
// setting all come from it.
type Setting struct {
	// Name is the spec file's key; the flag is --Name with '-' for '_'
	// and the variable YBBENCH_NAME.
	Name string
	// Type is the value's kind as users read it (integer, duration, …, or
	// the allowed values of an enumeration: "on|off"); one word, as the help
	// shows it beside the flag.
	Type string
	// Default is the value before any layer, as text ("" for none); when
	// DefaultDoc is set the value is computed (Defaults) and DefaultDoc
	// says how.
	Default, DefaultDoc string
	// Usage says what the setting does.
	Usage string
	// Valid says what values pass validation, for the help and docs/settings.md.
	Valid string
	// Switch makes the flag work alone (--name means true).
	Switch bool
	// Enum are the only values accepted, when set.
	Enum []string
	// Min is checked by Validate: minNone, minZero (not negative) or
	// minOne (positive).
	Min int
	// Seconds: a duration the agents take in whole seconds (YCSB's
	// maxexecutiontime and warmuptime, sysbench's --time, the KV tool's
	// --run_time), so a fraction is refused rather than cut off: a 500ms
	// duration became no time bound at all.
	Seconds bool
	// Cloud: only the cloud providers (aws, gcp) read the setting, so
	// given with another provider it is refused rather than ignored.
	Cloud bool
	// Families are the profile families whose agents read the profile
	// parameter the setting overrides (param); a setting that overrides
	// none has neither. Given for a profile of another family, the
	// setting is refused: it would change nothing and still be reported
	// as overridden.
	Families []string
	// zeroIsNone: a zero value asks for none of the parameter, which a
	// family without it already has, so it is not refused there (warmup).
	zeroIsNone bool
	// field points at the Spec field the setting fills.
	field func(*Spec) any
	// param points at the profile's parameter the setting overrides.
	param func(*profiles.Parameters) any
}

// The families whose agents read each profile parameter: a YCSB run has no
// warm-up, sysbench has no operation count or load threads (its prepare is
// not timed), and the KV tool runs each workload's own thread counts for a
// time, with no table to load. A test checks them against the agents'
// command lines.
var (
	allFamilies   = []string{"ycsb", "sysbench", "kv"}
	tableFamilies = []string{"ycsb", "sysbench"}
	ycsbOnly      = []string{"ycsb"}
	sysbenchOnly  = []string{"sysbench"}
)

// Bounds a numeric setting's Min may ask for.
const (
	minNone = iota
	minZero
	minOne
)

// Preset is a flag that sets several settings at once (--quick, --local):
// above the spec file and the environment, below flags given by name.
type Preset struct {
	Name, Usage string
	Values      []PresetValue
}

// PresetValue is one setting a preset sets, only When it holds (nil:
// always), judged once the flags are in.
type PresetValue struct {
	Setting, Value string
	When           func(*Spec) bool
	WhenDoc        string
}

// inventorySetting is the name of the setting (a YAML key, a flag, a
// variable) that names an inventory file; it is the provider's name too,
// which is why it is spelled once, here.
const inventorySetting = "inventory"

// settings is the table, in the order of the help and docs/settings.md.
var settings = []Setting{
	{Name: "profile", Type: "text", Default: "ycsb-ysql", Usage: "built-in profile (ybbench profiles)", Valid: "a built-in profile",
		field: func(s *Spec) any { return &s.Profile }},
	{Name: "provider", Type: providerChoices(builtin), Default: builtin.DefaultProvider(), Usage: "where the hosts come from", Valid: providerValid(builtin),
		field: func(s *Spec) any { return &s.Provider }},
	{Name: inventorySetting, Type: "path", Usage: "on-prem inventory file (implies provider inventory)", Valid: "given exactly when the provider is inventory",
		field: func(s *Spec) any { return &s.Inventory }},
	{Name: "flavor", Type: strings.Join(builtin.FlavorNames(), "|"), DefaultDoc: flavorDefault(builtin),
		Usage: "the database", Valid: "speaks the profile's API", field: func(s *Spec) any { return &s.Flavor }},
	{Name: "db_hosts", Type: "integer", Default: "3", Usage: "how many db hosts a local cluster has (on a cloud: the profile's)", Valid: hostsValid(builtin, dbHosts),
		field: func(s *Spec) any { return &s.DBHosts }},
	{Name: "client_hosts", Type: "integer", Default: "1", Usage: "how many client hosts a local cluster has (on a cloud: the profile's)", Valid: hostsValid(builtin, clientHosts),
		field: func(s *Spec) any { return &s.ClientHosts }},
	{Name: "records", Type: "integer", DefaultDoc: "the profile's", Usage: "override the profile's record count", Valid: "≥ 1 (unset: the profile's)", Min: minOne,
		field: func(s *Spec) any { return &s.Records }, param: func(p *profiles.Parameters) any { return &p.Records },
		Families: tableFamilies},
	{Name: "operations", Type: "integer", DefaultDoc: "the profile's", Usage: "override the profile's operation count", Valid: "≥ 1 (unset: the profile's)", Min: minOne,
		field: func(s *Spec) any { return &s.Operations }, param: func(p *profiles.Parameters) any { return &p.Operations },
		Families: ycsbOnly},
	{Name: "duration", Type: "duration", DefaultDoc: "the profile's", Usage: "override the run phase's time limit (e.g. 30s)", Valid: "> 0, whole seconds (unset: the profile's)", Min: minOne, Seconds: true,
		field: func(s *Spec) any { return &s.Duration }, param: func(p *profiles.Parameters) any { return &p.Duration },
		Families: allFamilies},
	{Name: "warmup", Type: "duration", DefaultDoc: "the profile's", Usage: "override the warm-up before the measured window (0: none)", Valid: "≥ 0, whole seconds; above 0 only for profiles with a warm-up (sysbench)", Min: minZero, Seconds: true,
		field: func(s *Spec) any { return &s.Warmup }, param: func(p *profiles.Parameters) any { return &p.Warmup },
		Families: sysbenchOnly, zeroIsNone: true},
	{Name: "threads", Type: "integer", DefaultDoc: "the profile's", Usage: "override the run phase's threads", Valid: "≥ 1 (unset: the profile's)", Min: minOne,
		field: func(s *Spec) any { return &s.Threads }, param: func(p *profiles.Parameters) any { return &p.Threads },
		Families: allFamilies},
	{Name: "load_threads", Type: "integer", DefaultDoc: "the profile's", Usage: "override the load phase's threads", Valid: "≥ 1 (unset: the profile's)", Min: minOne,
		field: func(s *Spec) any { return &s.LoadThreads }, param: func(p *profiles.Parameters) any { return &p.LoadThreads },
		Families: ycsbOnly},
	{Name: "workloads", Type: "list", DefaultDoc: "all of the profile's", Usage: "run only these workloads (comma list)", Valid: "each in the profile, once",
		field: func(s *Spec) any { return &s.Workloads }},
	{Name: "repeat", Type: "integer", Default: "1", Usage: "run each workload N times on the same cluster: reports give the median and spread, gates use the median",
		Valid: fmt.Sprintf("1 to %d", repetition.Max), Min: minOne, field: func(s *Spec) any { return &s.Repeat }},
	{Name: "runs_dir", Type: "path", Default: "runs", Usage: "where runs/<id>/ go", Valid: "not empty; its absolute path of letters, digits and _-./=:,@+ (it goes into the hosts' configuration files)",
		field: func(s *Spec) any { return &s.RunsDir }},
	{Name: "subnet", Type: "cidr", Default: "10.213.0.0/24", Usage: "subnet of a local cluster", Valid: "clear of this machine's routes",
		field: func(s *Spec) any { return &s.Subnet }},
	{Name: "yb_tarball", Type: "url-or-path", Usage: "YugabyteDB release tarball (implies flavor yugabyte)", Valid: "needed by flavor yugabyte; plain http:// needs yb_sha256",
		field: func(s *Spec) any { return &s.YBTarball }},
	{Name: "yb_sha256", Type: "hex", Usage: "the tarball's sha256", field: func(s *Spec) any { return &s.YBSHA256 }},
	{Name: "agent", Type: "path", DefaultDoc: "ybload beside ybbench", Usage: "the ybload binary to ship", field: func(s *Spec) any { return &s.Agent }},
	{Name: "parallel", Type: "integer", Default: "0", Usage: "fan-out limit over hosts (0: all)", Valid: "≥ 0", Min: minZero,
		field: func(s *Spec) any { return &s.Parallel }},
	{Name: "max_clock_skew", Type: "duration", Default: "250ms", Usage: "preflight's clock skew limit", Valid: "> 0", Min: minOne,
		field: func(s *Spec) any { return &s.MaxClockSkew }},
	{Name: "start_delay", Type: "duration", Default: "3s", DefaultDoc: "3s (a phase on one client: none, unless given)",
		Usage: "how far ahead agents on several clients are told to start together", Valid: "≥ 0", Min: minZero,
		field: func(s *Spec) any { return &s.StartDelay }},
	{Name: "agent_properties", Type: "name=value,…", Usage: "extra agent settings, name=value,… ({workload}, {phase} and {repetition}, r<k> with --repeat, are replaced)",
		field: func(s *Spec) any { return &s.AgentProperties }},
	{Name: "metrics_addr", Type: "port", DefaultDoc: "off",
		Usage: "serve every agent's live metrics for Prometheus on this port of its client's private address (http://ADDRESS:PORT/metrics) while it loads and runs",
		Valid: "a port, 1 to 65535, or :PORT",
		field: func(s *Spec) any { return &s.MetricsAddr }},
	{Name: "sweep", Type: "true|false", Default: "false", Switch: true,
		Usage: "after each workload's run, a throughput–latency sweep: open-model steps at fractions of the run's throughput, bisected to the knee (with repeat, one sweep per repetition, and how far their knees lie apart)",
		field: func(s *Spec) any { return &s.Sweep }},
	{Name: "sweep_fractions", Type: "list", DefaultDoc: "10,25,50,70,80,90,95,100,110",
		Usage: "the sweep's steps, in percent of the run's throughput", Valid: "numbers above 0, with sweep",
		field: func(s *Spec) any { return &s.SweepFractions }},
	{Name: "sweep_resolution", Type: "number", DefaultDoc: "2",
		Usage: "where the sweep stops bisecting: the knee's bracket, in percent of the run's throughput (coarser: fewer steps, a knee known less closely)",
		Valid: "above 0, at most 100, with sweep",
		field: func(s *Spec) any { return &s.SweepResolution }},
	{Name: "sweep_step", Type: "duration", Default: "0s", DefaultDoc: "0s: the run's duration, at most 45s",
		Usage: "each sweep step's measured time, whole seconds (a step whose p99 did not hold over its two halves is run again twice as long)",
		Valid: "≥ 1s, whole seconds, with sweep (0: the default)", Min: minZero, Seconds: true,
		field: func(s *Spec) any { return &s.SweepStep }},
	{Name: "sweep_warmup", Type: "duration", Default: "5s",
		Usage: "each sweep step's warm-up at the step's rate before its measured time, whole seconds (left out of its figures and of its limit verdict's host readings)",
		Valid: "≥ 0, whole seconds, with sweep", Min: minZero, Seconds: true,
		field: func(s *Spec) any { return &s.SweepWarmup }},
	{Name: "slo_p99", Type: "duration", Default: "0s", DefaultDoc: "0s: twice the lowest step's p99",
		Usage: "the p99 (from the intended start) a sweep step must stay within to count below the knee", Valid: "> 0, with sweep",
		field: func(s *Spec) any { return &s.SLOP99 }},
	{Name: "late_after", Type: "duration", Default: "1ms",
		Usage: "how far past its intended start a paced operation must start to count as late (a sweep step counts only with ≤ 0.1% late)",
		Valid: "> 0; with sweep outside YCSB profiles", Min: minOne,
		field: func(s *Spec) any { return &s.LateAfter }},
	{Name: "history_url", Type: "url", DefaultDoc: "the embedded store, $XDG_DATA_HOME/ybbench/history.db (else ~/.local/share/ybbench/history.db)",
		Usage: "the results history a run with complete results adds to: postgres://…, s3://bucket/prefix, sqlite:PATH (or a path ending .db), or a directory of runs",
		Valid: "reachable, writable and not of a newer schema, checked before anything is made",
		field: func(s *Spec) any { return &s.HistoryURL }},
	{Name: "no_history", Type: "true|false", Default: "false", Switch: true,
		Usage: "add nothing to the results history", Valid: "not with history_url",
		field: func(s *Spec) any { return &s.NoHistory }},
	{Name: "build_id", Type: "text", DefaultDoc: "the database's flavor and version",
		Usage: "the build under test, as the results history names it", field: func(s *Spec) any { return &s.BuildID }},
	{Name: "build_time", Type: "time", DefaultDoc: "none: the history orders by the run's time",
		Usage: "when the build under test was made (RFC 3339): the results history's order", Valid: "RFC 3339, e.g. 2026-12-06T10:00:00Z",
		field: func(s *Spec) any { return &s.BuildTime }},
	{Name: "host_samples", Type: "on|off", Default: "on", Enum: []string{"on", "off"},
		Usage: "read every host's /proc counters each tick of the measured phase, for the attribution of what limited the run (off: the verdict is unknown)",
		field: func(s *Spec) any { return &s.HostSamples }},
	{Name: "limit_rules", Type: "name=value,…", DefaultDoc: bottleneck.Default().String(),
		Usage: "thresholds (percent) of the limit attribution's rules, and link_gbps=N, the hosts' link capacity, for its network rule",
		Valid: "names of the rules (docs/limits.md), each a number in (0, 100]; link_gbps > 0",
		field: func(s *Spec) any { return &s.LimitRules }},
	{Name: "owner", Type: "text", DefaultDoc: "$SUDO_USER, else the current user", Usage: "owner recorded on the run",
		field: func(s *Spec) any { return &s.Owner }},
	{Name: "region", Type: "text", DefaultDoc: cloudDefault(builtin, func(d *parts.CloudDefaults) string { return d.Region }),
		Usage: "the cloud region the hosts are made in", Valid: "a region of the provider (its check asks the API)", Cloud: true,
		field: func(s *Spec) any { return &s.Region }},
	{Name: "zone", Type: "text", DefaultDoc: cloudDefault(builtin, func(d *parts.CloudDefaults) string { return d.Zone }) + "; in another region, its zone of the same letter",
		Usage: "the zone every host is made in (one zone: the published setups)", Valid: "a zone of the region", Cloud: true,
		field: func(s *Spec) any { return &s.Zone }},
	{Name: "project", Type: "text", Usage: "the GCP project the hosts are made in", Valid: "required on gcp, taken by gcp only", Cloud: true,
		field: func(s *Spec) any { return &s.Project }},
	{Name: "image", Type: "text", DefaultDoc: cloudDefault(builtin, func(d *parts.CloudDefaults) string { return d.Image }),
		Usage: "the machine image of every host", Valid: "aws: ami-… or ssm:<parameter path>; gcp: <project>/<image family>", Cloud: true,
		field: func(s *Spec) any { return &s.Image }},
	{Name: sshCIDRSetting, Type: "cidr", DefaultDoc: "this machine's public address as a /32, looked up at ssh_cidr_lookup_url when the run is created",
		Usage: "the only addresses the hosts' SSH port accepts (every other port: the run's own subnet only)", Valid: "an IPv4 CIDR of /16 or longer, never 0.0.0.0/0", Cloud: true,
		field: func(s *Spec) any { return &s.SSHCIDR }},
	{Name: "ssh_cidr_lookup_url", Type: "url", DefaultDoc: defaultLookupURL,
		Usage: "where this machine's public address is looked up when ssh_cidr is not given", Valid: "https://, answering with one IPv4 address", Cloud: true,
		field: func(s *Spec) any { return &s.SSHCIDRLookupURL }},
	{Name: "zone_fallback", Type: "true|false", Default: "false", Switch: true,
		Usage: "when the zone does not offer the instance type, use the first zone of the region that does (recorded)", Cloud: true,
		field: func(s *Spec) any { return &s.ZoneFallback }},
	{Name: "max_cost", Type: "usd", Usage: "refuse a run whose cost's upper bound (hourly rate × lifetime, ybbench plan shows it) is above this many US dollars",
		Valid: "> 0; the price table must price every item", Cloud: true,
		field: func(s *Spec) any { return &s.MaxCost }},
	{Name: "lifetime", Type: "duration", Default: "6h", Usage: "how long cloud hosts may live: they power off at expiry, and the janitor removes what remains",
		Valid: lifetimeBounds, Cloud: true,
		field: func(s *Spec) any { return &s.Lifetime }},
	{Name: "db_auth", Type: "on|off", Default: "on", Enum: []string{"on", "off"},
		Usage: "database authentication: on (generated credentials) or off (the seeds' unauthenticated setup, marked in the report)",
		field: func(s *Spec) any { return &s.DBAuth }},
	{Name: "accept_new_host_keys", Type: "true|false", Default: "false", Switch: true,
		Usage: "trust an inventory host's SSH key on first use when none is known (recorded)",
		field: func(s *Spec) any { return &s.AcceptNewHostKeys }},
}

// presets are the flags that stand for several settings.
var presets = []Preset{
	{Name: "local", Usage: "a local cluster on this machine (needs root)", Values: []PresetValue{{Setting: "provider", Value: "local"}}},
	// --quick sets only what the profile uses, so that the report marks as
	// overridden only what changed the run.
	{Name: "quick", Usage: "a small run (reported as overridden)", Values: []PresetValue{
		{Setting: "records", Value: "20000", When: profileUses("records")}, {Setting: "operations", Value: "200000", When: profileUses("operations")},
		{Setting: "threads", Value: "64", When: profileUses("threads")},
		{Setting: "load_threads", Value: "16", When: profileUses("load_threads")}, {Setting: "duration", Value: "60s", When: profileUses("duration")},
		{Setting: "warmup", Value: "10s", When: profileUses("warmup"), WhenDoc: "where the profile has a warm-up"}}},
}

// Settings returns the settings table.
func Settings() []Setting { return settings }

// Presets returns the presets.
func Presets() []Preset { return presets }

// FlagName is a setting's flag (db_hosts → db-hosts).
func FlagName(setting string) string { return strings.ReplaceAll(setting, "_", "-") }

// EnvName is the YBBENCH_* variable of a setting (db_hosts → YBBENCH_DB_HOSTS).
func EnvName(setting string) string { return "YBBENCH_" + strings.ToUpper(setting) }

// FlagUsage is a setting's help line: usage, default, what is valid, and
// its variable.
func (st Setting) FlagUsage() string {
	var b strings.Builder
	b.WriteString(st.Usage)
	if d := st.DefaultText(); d != "" {
		fmt.Fprintf(&b, "; default %s", d)
	}
	if st.Valid != "" {
		fmt.Fprintf(&b, "; valid: %s", st.Valid)
	}
	fmt.Fprintf(&b, " (%s)", EnvName(st.Name))
	return b.String()
}

// DefaultText is the default as users read it.
func (st Setting) DefaultText() string {
	if st.DefaultDoc != "" {
		return st.DefaultDoc
	}
	return st.Default
}

// FlagUsage is a preset's help line, listing what it sets.
func (p Preset) FlagUsage() string {
	var vs []string
	for _, v := range p.Values {
		x := v.Setting + "=" + v.Value
		if v.WhenDoc != "" {
			x += " " + v.WhenDoc
		}
		vs = append(vs, x)
	}
	return fmt.Sprintf("%s: %s (a flag naming one of these wins)", p.Usage, strings.Join(vs, ", "))
}

func settingByName(name string) (*Setting, bool) {
	for i := range settings {
		if settings[i].Name == name {
			return &settings[i], true
		}
	}
	return nil, false
}
