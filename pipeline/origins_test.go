package pipeline

import (
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"testing"
	"time"
)

// Origins names the layer whose value Load kept for each setting given:
// checked against Load's own result, each layer giving a value of its own.
func TestOriginsFollowLoad(t *testing.T) {
	file := filepath.Join(t.TempDir(), "run.yaml")
	if err := os.WriteFile(file, []byte("records: 111\nthreads: 7\nworkloads: [workloada]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"YBBENCH_OPERATIONS": "222", "YBBENCH_LOAD_THREADS": "3", "YBBENCH_THREADS": "9"}
	cl := CommandLine{File: file, Getenv: func(k string) string { return env[k] }, Presets: []string{"quick"},
		Flags: map[string]string{"threads": "5"}}
	s, err := Load(cl)
	if err != nil {
		t.Fatal(err)
	}
	got := Origins(cl)
	want := map[string]string{
		"records":      "--quick", // the preset is above the file
		"operations":   "--quick", // and above the variable
		"load_threads": "--quick",
		"duration":     "--quick",
		"threads":      "--threads", // a flag wins over the preset
		"workloads":    "spec file " + file,
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("origins %v\nwant %v", got, want)
	}
	// What Load kept is the named layer's value.
	for setting, value := range map[string]string{"records": "20000", "operations": "200000", "load_threads": "16", "threads": "5"} {
		var n int64
		switch setting {
		case "records":
			n = val(s.Records)
		case "operations":
			n = val(s.Operations)
		case "load_threads":
			n = int64(val(s.LoadThreads))
		case "threads":
			n = int64(val(s.Threads))
		}
		if strconv.FormatInt(n, 10) != value {
			t.Errorf("Load kept %s %d, not %s's %s", setting, n, got[setting], value)
		}
	}
	if len(s.Workloads) != 1 || s.Workloads[0] != "workloada" {
		t.Errorf("Load kept workloads %q, not the file's", s.Workloads)
	}
	// Without the preset the variables give what they set.
	cl.Presets = nil
	if o := Origins(cl); o["operations"] != "YBBENCH_OPERATIONS" || o["records"] != "spec file "+file {
		t.Errorf("without --quick: %v", o)
	}
}

// invocations.json says who overrode each parameter, from the command
// line's origins, and setup.json carries it.
func TestOverriddenByIsRecorded(t *testing.T) {
	s := Defaults()
	s.RunsDir = t.TempDir()
	s.Records, s.Duration = new(int64(5)), new(time.Duration(30e9))
	res, err := s.Resolve()
	if err != nil {
		t.Fatal(err)
	}
	res.Origins = map[string]string{"records": "--quick", "duration": "--duration", "subnet": "--subnet"}
	r, err := New(res, Deps{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	st, err := r.setup()
	if err != nil {
		t.Fatal(err)
	}
	if want := map[string]string{"records": "--quick", "duration": "--duration"}; !reflect.DeepEqual(st.OverriddenBy, want) {
		t.Errorf("setup.json's overridden_by %v, want %v (only what was overridden)", st.OverriddenBy, want)
	}
}
