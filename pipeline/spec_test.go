package pipeline

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// defaults < file < env < flags, each layer validated the same way.
func TestSpecLayering(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "spec.yaml")
	os.WriteFile(file, []byte("records: 5000\nthreads: 16\nduration: 20s\nclient_hosts: 2\n"), 0o644)
	s := Defaults()
	if err := LoadFile(&s, file); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"YBBENCH_THREADS": "8", "YBBENCH_OPERATIONS": "700"}
	if err := LoadEnv(&s, func(k string) string { return env[k] }); err != nil {
		t.Fatal(err)
	}
	if err := SetString(&s, "operations", "900"); err != nil { // a flag
		t.Fatal(err)
	}
	if val(s.Records) != 5000 || val(s.Threads) != 8 || val(s.Operations) != 900 || val(s.Duration) != 20*time.Second || s.ClientHosts != 2 || s.DBHosts != 3 {
		t.Errorf("layered spec %+v", s)
	}
	r, err := s.Resolve()
	if err != nil {
		t.Fatal(err)
	}
	if r.Params.Records != 5000 || r.Params.LoadThreads != 32 || !slices.Contains(r.Overridden, "records") || !slices.Contains(r.Overridden, "threads") {
		t.Errorf("resolved %+v overridden %v", r.Params, r.Overridden)
	}
}

// A bad file names the file, the line and the field; every problem is
// reported at once.
func TestSpecFileErrors(t *testing.T) {
	file := filepath.Join(t.TempDir(), "bad.yaml")
	os.WriteFile(file, []byte("records: lots\nthreadz: 4\nduration: 5\n"), 0o644)
	s := Defaults()
	err := LoadFile(&s, file)
	if err == nil {
		t.Fatal("want errors")
	}
	for _, want := range []string{"bad.yaml:1: records: \"lots\" is not an integer", "bad.yaml:2: threadz: unknown setting", "bad.yaml:3: duration: \"5\" is not a duration"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
}

func TestValidateReportsEverythingAtOnce(t *testing.T) {
	s := Defaults()
	s.Profile = "nope"
	s.Provider = "moon"
	s.Flavor = "oracle"
	s.Threads = new(-1)
	err := s.Validate()
	if err == nil {
		t.Fatal("want errors")
	}
	for _, want := range []string{"unknown profile", "provider: \"moon\"", "flavor: \"oracle\"", "threads: -1: want ≥ 1"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
	y := Defaults()
	y.Flavor = "yugabyte"
	if err := y.Validate(); err == nil || !strings.Contains(err.Error(), "yb_tarball") {
		t.Errorf("yugabyte without a tarball: %v", err)
	}
}

func TestFlavorFollowsTheProfilesAPI(t *testing.T) {
	for _, c := range []struct{ profile, flavor, tarball, want, err string }{
		{"ycsb-ysql", "", "", "postgres", ""},
		{"ycsb-ycql", "", "", "cassandra", ""},
		{"kv-ycql", "", "/tmp/yb.tgz", "yugabyte", ""},
		{"sysbench-ysql", "cassandra", "", "", "cassandra does not speak YSQL"},
		{"kv-ycql", "postgres", "", "", "postgres does not speak YCQL"},
	} {
		s := Defaults()
		s.Profile, s.Flavor, s.YBTarball = c.profile, c.flavor, c.tarball
		r, err := s.Resolve()
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%+v: error %v, want %q", c, err, c.err)
			}
			continue
		}
		if err != nil || r.Flavor != c.want {
			t.Errorf("%+v: flavor %v %v", c, r, err)
		}
	}
}

// YAML's own forms come through as values: quoted strings lose their
// quotes, block lists and mappings are read as such.
func TestSpecFileYAMLForms(t *testing.T) {
	file := filepath.Join(t.TempDir(), "spec.yaml")
	os.WriteFile(file, []byte("owner: \"123\"\nruns_dir: \"#runs\"\nworkloads:\n  - workloada\n  - workloadc\n"+
		"agent_properties:\n  a: b\n  c: d=e\n"), 0o644)
	s := Defaults()
	if err := LoadFile(&s, file); err != nil {
		t.Fatal(err)
	}
	if s.Owner != "123" || s.RunsDir != "#runs" || !slices.Equal(s.Workloads, []string{"workloada", "workloadc"}) ||
		len(s.AgentProperties) != 2 || s.AgentProperties["a"] != "b" || s.AgentProperties["c"] != "d=e" {
		t.Errorf("owner %q runs_dir %q workloads %q agent_properties %q", s.Owner, s.RunsDir, s.Workloads, s.AgentProperties)
	}
}

// A key set twice, a second document and a list where a value belongs are
// errors with file and line.
func TestSpecFileStructureErrors(t *testing.T) {
	for _, c := range []struct{ text, want string }{
		{"threads: 4\nthreads: 8\n", "spec.yaml:2: threads: set twice (first on line 1)"},
		{"threads: 4\n---\nthreads: 8\n", "a second YAML document"},
		{"threads: [4, 8]\n", "spec.yaml:1: threads: want a single value"},
		{"threads: 4\n\trecords: 8\n", "spec.yaml:2:1: tabs are not allowed in YAML; use spaces"},
	} {
		file := filepath.Join(t.TempDir(), "spec.yaml")
		os.WriteFile(file, []byte(c.text), 0o644)
		s := Defaults()
		if err := LoadFile(&s, file); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.text, err, c.want)
		}
	}
}

// An inventory named in the file or the environment, with no provider,
// means the inventory provider; with an explicit local provider it is an
// error rather than ignored.
func TestInventoryImpliesItsProvider(t *testing.T) {
	file := filepath.Join(t.TempDir(), "spec.yaml")
	os.WriteFile(file, []byte("inventory: hosts.yaml\n"), 0o644)
	s := Defaults()
	if err := LoadFile(&s, file); err != nil || s.Provider != "inventory" {
		t.Errorf("file: provider %q, %v", s.Provider, err)
	}
	s = Defaults()
	env := map[string]string{"YBBENCH_INVENTORY": "hosts.yaml"}
	if err := LoadEnv(&s, func(k string) string { return env[k] }); err != nil || s.Provider != "inventory" {
		t.Errorf("env: provider %q, %v", s.Provider, err)
	}
	s = Defaults()
	s.Inventory = "hosts.yaml"
	if err := s.Validate(); err == nil || !strings.Contains(err.Error(), "the provider is local") {
		t.Errorf("local with an inventory: %v", err)
	}
}
