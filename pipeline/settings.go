package pipeline

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/ybbench/ybbench/pipeline/parts"
	"github.com/ybbench/ybbench/profiles"
	"github.com/ybbench/ybbench/record/repetition"
)

// Setting is one row of the settings table: the one place a run setting is
// described. The spec file's key, the YBBENCH_* variable, the flag and its
// help text, the README's table, parsing and the checks that need no other
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
	// Valid says what values pass validation, for the help and the README.
	Valid string
	// Switch makes the flag work alone (--name means true).
	Switch bool
	// Enum are the only values accepted, when set.
	Enum []string
	// Min is checked by Validate: minNone, minZero (not negative) or
	// minOne (positive).
	Min int
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

// settings is the table, in the order of the help and the README.
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
	{Name: "duration", Type: "duration", DefaultDoc: "the profile's", Usage: "override the run phase's time limit (e.g. 30s)", Valid: "> 0 (unset: the profile's)", Min: minOne,
		field: func(s *Spec) any { return &s.Duration }, param: func(p *profiles.Parameters) any { return &p.Duration },
		Families: allFamilies},
	{Name: "warmup", Type: "duration", DefaultDoc: "the profile's", Usage: "override the warm-up before the measured window (0: none)", Valid: "≥ 0; above 0 only for profiles with a warm-up (sysbench)", Min: minZero,
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
	{Name: "runs_dir", Type: "path", Default: "runs", Usage: "where runs/<id>/ go", Valid: "not empty",
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
	{Name: "start_delay", Type: "duration", Default: "3s", Usage: "how far ahead agents are told to start together", Valid: "≥ 0", Min: minZero,
		field: func(s *Spec) any { return &s.StartDelay }},
	{Name: "agent_properties", Type: "name=value,…", Usage: "extra agent settings, name=value,… ({workload}, {phase} and {repetition}, r<k> with --repeat, are replaced)",
		field: func(s *Spec) any { return &s.AgentProperties }},
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

// SetString sets one setting from text (file values, YBBENCH_* variables,
// presets and flags all come through here, so they are parsed and checked
// the same way).
func SetString(s *Spec, name, val string) error {
	st, ok := settingByName(name)
	if !ok {
		return fmt.Errorf("unknown setting %q", name)
	}
	if len(st.Enum) > 0 {
		found := false
		for _, e := range st.Enum {
			found = found || e == val
		}
		if !found {
			return fmt.Errorf("%q: want %s", val, strings.Join(st.Enum, " or "))
		}
	}
	switch p := st.field(s).(type) {
	case *string:
		*p = val
	case *int:
		return parseInto(p, val, strconv.Atoi, "an integer")
	case **int:
		return parseOptional(p, val, strconv.Atoi, "an integer")
	case *int64:
		return parseInto(p, val, parseInt64, "an integer")
	case **int64:
		return parseOptional(p, val, parseInt64, "an integer")
	case *time.Duration:
		return parseInto(p, val, time.ParseDuration, "a duration (e.g. 30s, 2m)")
	case **time.Duration:
		return parseOptional(p, val, time.ParseDuration, "a duration (e.g. 30s, 2m)")
	case **float64:
		return parseOptional(p, val, parseNumber, "a number (e.g. 25 or 12.50)")
	case *bool:
		b, err := strconv.ParseBool(val)
		if err != nil {
			return fmt.Errorf("%q: want true or false", val)
		}
		*p = b
	case *[]string:
		*p = nil
		for _, w := range strings.Split(strings.Trim(val, "[]"), ",") {
			if w = strings.TrimSpace(w); w != "" {
				*p = append(*p, w)
			}
		}
	case *map[string]string:
		// name=value pairs separated by commas, or a YAML flow mapping {a: b}.
		m := map[string]string{}
		for _, kv := range strings.Split(strings.Trim(val, "{}"), ",") {
			kv = strings.TrimSpace(kv)
			if kv == "" {
				continue
			}
			k, v, ok := strings.Cut(kv, "=")
			if !ok {
				k, v, ok = strings.Cut(kv, ":")
			}
			if !ok {
				return fmt.Errorf("%q: want name=value pairs", kv)
			}
			m[strings.TrimSpace(k)] = strings.TrimSpace(v)
		}
		*p = m
	default:
		// A row whose field has no parser: a programming error the
		// table's test catches.
		return fmt.Errorf("setting %s: no parser for %T", name, p)
	}
	return nil
}

// parseInto parses val into *p, or says what val is not.
func parseInto[T any](p *T, val string, parse func(string) (T, error), want string) error {
	v, err := parse(val)
	if err != nil {
		return fmt.Errorf("%q is not %s", val, want)
	}
	*p = v
	return nil
}

// parseOptional sets an optional field (nil: not given) only when val
// parses: a value that does not parse leaves the field as it was, so that
// it is reported once, as not parsing, and not again as out of range.
func parseOptional[T any](p **T, val string, parse func(string) (T, error), want string) error {
	v := new(T)
	if err := parseInto(v, val, parse, want); err != nil {
		return err
	}
	*p = v
	return nil
}

func parseInt64(s string) (int64, error) { return strconv.ParseInt(s, 10, 64) }

// parseNumber reads a finite decimal number (no NaN, no infinity, no hex).
func parseNumber(s string) (float64, error) {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) || strings.ContainsAny(s, "xXpP") {
		return 0, fmt.Errorf("not a number: %q", s)
	}
	return f, nil
}

// checkBounds reports every setting below its Min, naming where its value
// came from. A workload parameter left unset (nil) is the profile's and
// is not checked.
func (s *Spec) checkBounds() []error {
	var errs []error
	for _, st := range settings {
		if st.Min == minNone {
			continue
		}
		n, ok := numberOf(st.field(s))
		if !ok {
			continue
		}
		switch {
		case st.Min == minZero && n < 0:
			errs = append(errs, fmt.Errorf("%s: %s must not be negative", s.where(st.Name), st.show(n)))
		case st.Min == minOne && n <= 0:
			errs = append(errs, fmt.Errorf("%s: %s: want %s", s.where(st.Name), st.show(n), st.Valid))
		}
	}
	return errs
}

// numberOf reads a numeric field (false: not numeric, or unset).
func numberOf(field any) (int64, bool) {
	switch p := field.(type) {
	case *int:
		return int64(*p), true
	case *int64:
		return *p, true
	case *time.Duration:
		return int64(*p), true
	case **int:
		if *p != nil {
			return int64(**p), true
		}
	case **int64:
		if *p != nil {
			return **p, true
		}
	case **time.Duration:
		if *p != nil {
			return int64(**p), true
		}
	}
	return 0, false
}

// show writes a numeric setting's value as it was typed (a duration as
// one).
func (st Setting) show(n int64) string {
	if st.Type == "duration" {
		return time.Duration(n).String()
	}
	return strconv.FormatInt(n, 10)
}

// where names where a setting's value came from, for a message refusing
// it: the flag, the variable, the spec file's file:line: field, or the
// preset; the setting's own name when no layer set it (its default).
func (s *Spec) where(name string) string {
	if w, ok := s.from[name]; ok {
		return w
	}
	return name
}

// setFrom records where a layer set a setting (the last layer wins, as
// its value does).
func (s *Spec) setFrom(name, where string) {
	if s.from == nil {
		s.from = map[string]string{}
	}
	s.from[name] = where
}

// given reports whether a setting was given: set by a layer (a flag, a
// variable, the spec file, a preset), or, in a spec made some other way (a
// ledger's, a test's), holding another value than the table's default.
func (s *Spec) given(name string) bool {
	if _, ok := s.from[name]; ok {
		return true
	}
	st, ok := settingByName(name)
	if !ok {
		return false
	}
	var def Spec
	if st.Default != "" {
		SetString(&def, name, st.Default) // the table's test parses every default
	}
	return !reflect.DeepEqual(reflect.ValueOf(st.field(s)).Elem().Interface(), reflect.ValueOf(st.field(&def)).Elem().Interface())
}

// CommandLine is the command line's part of a spec: a spec file, the
// environment, the presets asked for and the flags given by name (setting →
// text).
type CommandLine struct {
	File   string
	Getenv func(string) string
	// Environ is the whole environment (os.Environ), when every YBBENCH_*
	// variable in it is to be known (nil: not checked).
	Environ []string
	Presets []string
	Flags   map[string]string
}

// Load layers defaults < spec file < YBBENCH_* < presets < flags and
// reports every problem of every layer at once (not yet the checks that
// need several settings: Resolve does those).
func Load(cl CommandLine) (Spec, error) {
	s := Defaults()
	var errs []error
	if cl.File != "" {
		if err := LoadFile(&s, cl.File); err != nil {
			errs = append(errs, err)
		}
	}
	if cl.Getenv != nil {
		if err := LoadEnv(&s, cl.Getenv); err != nil {
			errs = append(errs, err)
		}
	}
	errs = append(errs, unknownVariables(cl.Environ)...)
	for _, st := range settings {
		v, ok := cl.Flags[st.Name]
		if !ok {
			continue
		}
		if err := SetString(&s, st.Name, v); err != nil {
			errs = append(errs, fmt.Errorf("--%s: %w", FlagName(st.Name), err))
		}
		s.setFrom(st.Name, "--"+FlagName(st.Name))
	}
	// Presets go in after the flags so that a condition sees the profile
	// the flags chose, and skip what a flag set, so a flag still wins.
	presetProvider := false
	for _, p := range presets {
		asked := false
		for _, n := range cl.Presets {
			asked = asked || n == p.Name
		}
		if !asked {
			continue
		}
		for _, v := range p.Values {
			if _, flag := cl.Flags[v.Setting]; flag || (v.When != nil && !v.When(&s)) {
				continue
			}
			if err := SetString(&s, v.Setting, v.Value); err != nil {
				errs = append(errs, fmt.Errorf("--%s: %w", p.Name, err))
			}
			s.setFrom(v.Setting, fmt.Sprintf("--%s (%s=%s)", p.Name, v.Setting, v.Value))
			presetProvider = presetProvider || v.Setting == "provider"
		}
	}
	for _, n := range cl.Presets {
		found := false
		for _, p := range presets {
			found = found || p.Name == n
		}
		if !found {
			errs = append(errs, fmt.Errorf("unknown preset %q", n))
		}
	}
	_, inv := cl.Flags[inventorySetting]
	_, prov := cl.Flags["provider"]
	inferProvider(&s, inv, prov || presetProvider)
	return s, errors.Join(errs...)
}

// WriteSettingsTable writes the settings and presets as the README's
// Markdown table.
func WriteSettingsTable(b *strings.Builder) {
	b.WriteString("| setting (file · flag · variable) | type | default | what | valid |\n|---|---|---|---|---|\n")
	cell := func(s string) string { return strings.ReplaceAll(s, "|", `\|`) }
	for _, st := range settings {
		fmt.Fprintf(b, "| `%s` · `--%s` · `%s` | %s | %s | %s | %s |\n", st.Name, FlagName(st.Name), EnvName(st.Name),
			cell(st.Type), cell(st.DefaultText()), cell(st.Usage), cell(st.Valid))
	}
	b.WriteString("\n| preset flag | sets |\n|---|---|\n")
	for _, p := range presets {
		fmt.Fprintf(b, "| `--%s` | %s |\n", p.Name, cell(p.FlagUsage()))
	}
}
