package pipeline

import (
	"os"
	"os/user"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ybbench/ybbench/internal/golden"
)

// notSettings are the exported fields of Spec a spec file cannot set
// (yaml "-"): what the run records beside a setting.
func notSettings(f reflect.StructField) bool { return f.Tag.Get("yaml") == "-" }

// Every field of Spec that a spec file names (its yaml tag) is exactly one
// row of the table, and the row fills that field: a new field without a
// row, or a row pointing at another field, fails here.
func TestSettingsTableCoversSpec(t *testing.T) {
	typ := reflect.TypeOf(Spec{})
	rows := map[string]int{}
	for _, st := range Settings() {
		rows[st.Name]++
	}
	for i := 0; i < typ.NumField(); i++ {
		f := typ.Field(i)
		if !f.IsExported() || notSettings(f) {
			continue // bookkeeping (where values came from), not a setting
		}
		name := strings.Split(f.Tag.Get("yaml"), ",")[0]
		if rows[name] != 1 {
			t.Errorf("Spec.%s (yaml %q) has %d rows in the settings table, want 1", f.Name, name, rows[name])
			continue
		}
		st, _ := settingByName(name)
		var s Spec
		got := reflect.ValueOf(st.field(&s)).Pointer()
		want := reflect.ValueOf(&s).Elem().Field(i).Addr().Pointer()
		if got != want {
			t.Errorf("setting %s fills another field than Spec.%s", name, f.Name)
		}
	}
	exported := 0
	for i := 0; i < typ.NumField(); i++ {
		if typ.Field(i).IsExported() && !notSettings(typ.Field(i)) {
			exported++
		}
	}
	if len(rows) != exported {
		t.Errorf("%d settings for %d Spec fields", len(rows), exported)
	}
}

// Every default parses, is what Defaults holds, and every row says what it
// does; the defaults are valid together.
func TestSettingsDefaults(t *testing.T) {
	d := Defaults()
	for _, st := range Settings() {
		if st.Usage == "" || st.Type == "" || strings.Contains(st.Type, " ") {
			t.Errorf("%s: usage %q, type %q (one word)", st.Name, st.Usage, st.Type)
		}
		if st.Default == "" {
			continue
		}
		var s Spec
		if err := SetString(&s, st.Name, st.Default); err != nil {
			t.Errorf("%s: default %q: %v", st.Name, st.Default, err)
		}
		if !reflect.DeepEqual(reflect.ValueOf(st.field(&s)).Elem().Interface(), reflect.ValueOf(st.field(&d)).Elem().Interface()) {
			t.Errorf("%s: Defaults() does not hold the table's default %q", st.Name, st.Default)
		}
	}
	// Independent facts: what the README and earlier versions promised.
	if d.Profile != "ycsb-ysql" || d.Provider != "local" || d.DBHosts != 3 || d.ClientHosts != 1 || d.RunsDir != "runs" ||
		d.Subnet != "10.213.0.0/24" || d.MaxClockSkew != 250*time.Millisecond || d.StartDelay != 3*time.Second ||
		d.Lifetime != 6*time.Hour || d.DBAuth != "on" || d.AcceptNewHostKeys {
		t.Errorf("defaults %+v", d)
	}
	if err := d.Validate(); err != nil {
		t.Errorf("the defaults do not validate: %v", err)
	}
}

// The run's owner is who invoked ybbench: sudo's caller first, then the
// process's user; never "unknown".
func TestInvokingUser(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	me := func() (*user.User, error) { return &user.User{Username: "alice"}, nil }
	none := func() (*user.User, error) { return nil, user.UnknownUserIdError(4242) }
	for _, c := range []struct {
		name    string
		env     map[string]string
		current func() (*user.User, error)
		want    string
	}{
		{"sudo", map[string]string{"SUDO_USER": "bob", "USER": "root"}, me, "bob"},
		{"plain", map[string]string{"USER": "carol"}, me, "alice"},
		{"no passwd entry", map[string]string{"USER": "carol"}, none, "carol"},
		{"nothing", nil, none, "uid " + strconv.Itoa(os.Getuid())},
	} {
		if got := invokingUser(env(c.env), c.current); got != c.want || got == "unknown" {
			t.Errorf("%s: owner %q, want %q", c.name, got, c.want)
		}
	}
	if Defaults().Owner == "" || Defaults().Owner == "unknown" {
		t.Errorf("default owner %q", Defaults().Owner)
	}
}

// --quick is a preset: above the file and the environment, below a flag
// that names one of its settings; it sets only what the profile uses (its
// warm-up only where the profile has one, no operation count or load
// threads for sysbench). --local sets the provider unless --provider says
// otherwise.
func TestPresets(t *testing.T) {
	file := writeSpec(t, "records: 5\nthreads: 7\nprofile: sysbench-ysql\n")
	env := map[string]string{"YBBENCH_DURATION": "9s"}
	s, err := Load(CommandLine{File: file, Getenv: func(k string) string { return env[k] }, Presets: []string{"quick"},
		Flags: map[string]string{"threads": "3"}})
	if err != nil {
		t.Fatal(err)
	}
	if val(s.Records) != 20000 || s.Operations != nil || val(s.Threads) != 3 || s.LoadThreads != nil || val(s.Duration) != time.Minute || val(s.Warmup) != 10*time.Second {
		t.Errorf("quick over sysbench: %+v", s)
	}
	s, err = Load(CommandLine{Presets: []string{"quick"}, Flags: map[string]string{"profile": "ycsb-ysql"}})
	if err != nil || s.Warmup != nil || val(s.Records) != 20000 {
		t.Errorf("quick over ycsb: warmup %v records %d, %v", s.Warmup, val(s.Records), err)
	}
	s, err = Load(CommandLine{Presets: []string{"quick"}, Flags: map[string]string{"profile": "sysbench-ysql", "warmup": "2s"}})
	if err != nil || val(s.Warmup) != 2*time.Second {
		t.Errorf("a --warmup flag beside quick: %v, %v", val(s.Warmup), err)
	}
	env = map[string]string{"YBBENCH_PROVIDER": "inventory"}
	s, _ = Load(CommandLine{Getenv: func(k string) string { return env[k] }, Presets: []string{"local"}})
	if s.Provider != "local" {
		t.Errorf("--local over YBBENCH_PROVIDER=inventory: %q", s.Provider)
	}
	s, _ = Load(CommandLine{Presets: []string{"local"}, Flags: map[string]string{"inventory": "h.yaml"}})
	if s.Provider != "local" {
		t.Errorf("--local --inventory: provider %q (want local, refused by Validate)", s.Provider)
	}
	s, _ = Load(CommandLine{Flags: map[string]string{"inventory": "h.yaml"}})
	if s.Provider != "inventory" {
		t.Errorf("--inventory alone: provider %q", s.Provider)
	}
	if _, err := Load(CommandLine{Presets: []string{"slow"}}); err == nil || !strings.Contains(err.Error(), `unknown preset "slow"`) {
		t.Errorf("unknown preset: %v", err)
	}
	_, err = Load(CommandLine{Flags: map[string]string{"records": "many", "db_auth": "maybe"}})
	for _, want := range []string{`--records: "many" is not an integer`, `--db-auth: "maybe": want on or off`} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("flag errors lack %q: %v", want, err)
		}
	}
}

// val is what p points at, or the zero value when p is nil.
func val[T any](p *T) T {
	if p == nil {
		var zero T
		return zero
	}
	return *p
}

func writeSpec(t *testing.T, text string) string {
	t.Helper()
	f := t.TempDir() + "/spec.yaml"
	if err := os.WriteFile(f, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return f
}

const (
	tableBegin = "<!-- settings table: written by go test ./pipeline -run TestREADMESettingsTable -update -->\n"
	tableEnd   = "<!-- end of settings table -->\n"
)

// The README's settings table is the table's own rendering (-update
// rewrites it).
func TestREADMESettingsTable(t *testing.T) {
	const readme = "../docs/settings.md"
	b, err := os.ReadFile(readme)
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	i, j := strings.Index(text, tableBegin), strings.Index(text, tableEnd)
	if i < 0 || j < i {
		t.Fatalf("docs/settings.md lacks the settings table's markers %q … %q", tableBegin, tableEnd)
	}
	var want strings.Builder
	WriteSettingsTable(&want)
	got := text[i+len(tableBegin) : j]
	if got == want.String() {
		return
	}
	if golden.Updating() {
		if err := os.WriteFile(readme, []byte(text[:i+len(tableBegin)]+want.String()+text[j:]), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("docs/settings.md's settings table is not current (go test ./pipeline -run TestREADMESettingsTable -update):\n--- docs/settings.md\n%s\n--- table\n%s", got, want.String())
	// Every setting appears in it, whatever the rendering.
	for _, st := range Settings() {
		if !strings.Contains(got, "`--"+FlagName(st.Name)+"`") {
			t.Errorf("README's table lacks --%s", FlagName(st.Name))
		}
	}
}

// --repeat takes 1 to 100: 0 and 101 are refused, naming the setting and
// its range.
func TestRepeatBounds(t *testing.T) {
	for n, ok := range map[int]bool{0: false, 1: true, 3: true, 100: true, 101: false, -2: false} {
		s := Defaults()
		s.Repeat = n
		err := s.Validate()
		if ok != (err == nil) {
			t.Errorf("repeat %d: %v", n, err)
			continue
		}
		if err != nil && (!strings.Contains(err.Error(), "repeat") || !strings.Contains(err.Error(), "1 to 100")) {
			t.Errorf("repeat %d: %v, want the setting and its range named", n, err)
		}
	}
}
