package main

import (
	"bytes"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ybbench/ybbench/internal/testenv"

	"github.com/ybbench/ybbench/collect/history"
)

// buildYbbench builds the command into dir, as a user gets it.
func buildYbbench(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "ybbench")
	cmd := exec.Command("go", "build", "-o", bin, "./cmd/ybbench")
	cmd.Dir = testenv.RepoRoot()
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// versionOnly is a stand-in terraform that only tells its version.
func versionOnly(t *testing.T, version string) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "terraform")
	script := "#!/bin/sh\n[ \"$1\" = version ] || { echo \"unexpected terraform $*\" >&2; exit 1; }\n" +
		`echo '{"terraform_version":"` + version + `","platform":"linux_amd64","provider_selections":{},"terraform_outdated":false}'` + "\n"
	if err := os.WriteFile(bin, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return bin
}

// tree is a directory's every path with its mode and content, to compare
// before and after a command.
func tree(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		b.WriteString(p + " " + info.Mode().String() + "\n")
		if info.Mode().IsRegular() {
			c, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			b.Write(c)
			b.WriteString("\n")
		}
		return nil
	})
	if errors.Is(err, fs.ErrNotExist) {
		return "(none)"
	}
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// Bad input to run, up and plan is refused (exit 2) before a run is
// created: the runs directory is left as it was, byte for byte (or not
// made at all), and every problem is reported, one a line. The built
// binary is driven as a user would drive it.
func TestBadInputCreatesNoRun(t *testing.T) {
	bin := buildYbbench(t)
	dir := t.TempDir()
	tf, oldTF := versionOnly(t, "1.5.7"), versionOnly(t, "1.4.7")
	key := filepath.Join(dir, "id")
	noRoles := filepath.Join(dir, "no-roles.yaml")
	tarball := filepath.Join(dir, "yugabyte-2.20.1.3-linux-x86_64.tar.gz")
	for name, text := range map[string]string{
		key:     "k",
		noRoles: "defaults: {ssh: {key: " + key + "}}\nhosts:\n  - {name: db1, address: 10.0.0.1}\n  - {name: c1, roles: [client], address: 10.0.0.2}\n",
		tarball: "not really a tarball",
	} {
		if err := os.WriteFile(name, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	sum := sha256.Sum256([]byte("not really a tarball"))
	// An earlier run's directory, which must stay as it is.
	runs := filepath.Join(dir, "runs")
	if err := os.MkdirAll(filepath.Join(runs, "earlier"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(runs, "earlier", "run.json"), []byte(`{"id":"earlier"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		env  []string
		args []string
		want []string
	}{
		{"inventory without roles", nil, []string{"--inventory", noRoles},
			[]string{noRoles + ":3: hosts[0].roles: a host needs a role", "hosts: no host has the db role"}},
		{"subnet", nil, []string{"--local", "--subnet", "10.0.0.0/33"}, []string{`--subnet: subnet "10.0.0.0/33"`}},
		{"every bad flag", nil, []string{"--local", "--records", "abc", "--threads", "-1", "--profile", "nope"},
			[]string{`--records: "abc" is not an integer`, "--threads: -1", `--profile: unknown profile "nope"`}},
		{"zero", nil, []string{"--local", "--quick", "--threads", "0", "--duration", "0s"}, []string{"--threads: 0", "--duration: 0s"}},
		{"misspelt variable", []string{"YBBENCH_THREADZ=8"}, []string{"--local"}, []string{"YBBENCH_THREADZ: not a variable ybbench knows; did you mean YBBENCH_THREADS?"}},
		{"old terraform", []string{"YBBENCH_TERRAFORM=" + oldTF}, []string{"--local"}, []string{"is version 1.4.7; ybbench needs 1.5.0 or later"}},
		{"missing tarball", nil, []string{"--local", "--yb-tarball", filepath.Join(dir, "nope.tar.gz")}, []string{"--yb-tarball: open " + filepath.Join(dir, "nope.tar.gz")}},
		{"tarball of another sha256", nil, []string{"--local", "--yb-tarball", tarball, "--yb-sha256", strings.Repeat("a", 64)},
			[]string{"has sha256 " + hex.EncodeToString(sum[:])}},
		{"sweep fraction", nil, []string{"--local", "--sweep", "--sweep-fractions", "10,0"}, []string{"--sweep-fractions: 0: a step's share of the saturation throughput must be above 0"}},
		{"late without sweep", nil, []string{"--local", "--profile", "kv-ycql", "--late-after", "5ms"}, []string{"--late-after: given without sweep"}},
		{"slo without sweep", nil, []string{"--local", "--slo-p99", "5ms"}, []string{"--slo-p99: given without sweep"}},
		{"limit rule", nil, []string{"--local", "--limit-rules", "client_cpu=120"}, []string{"--limit-rules: limit_rules: client_cpu=120 must be a percent in (0, 100]"}},
		{"all at once", []string{"YBBENCH_THREADZ=8", "YBBENCH_TERRAFORM=" + oldTF},
			[]string{"--local", "--subnet", "10.0.0.0/33", "--records", "0", "--yb-tarball", filepath.Join(dir, "nope.tar.gz")},
			[]string{"YBBENCH_THREADZ", "--records: 0", "--subnet:", "is version 1.4.7", "--yb-tarball: open"}},
	} {
		for _, command := range []string{"run", "up", "plan"} {
			t.Run(c.name+"/"+command, func(t *testing.T) {
				before := tree(t, runs)
				args := append([]string{command, "--runs-dir", runs, "--agent", bin}, c.args...)
				cmd := exec.Command(bin, args...)
				cmd.Env = append(append(environWithout("YBBENCH_"), "YBBENCH_TERRAFORM="+tf), c.env...)
				var stderr bytes.Buffer
				cmd.Stderr = &stderr
				err := cmd.Run()
				var ee *exec.ExitError
				if !errors.As(err, &ee) || ee.ExitCode() != 2 {
					t.Fatalf("ybbench %s: %v, want exit 2\n%s", strings.Join(args, " "), err, stderr.String())
				}
				out := stderr.String()
				for _, w := range c.want {
					if !strings.Contains(out, w) {
						t.Errorf("ybbench %s: stderr lacks %q:\n%s", strings.Join(args, " "), w, out)
					}
				}
				if n := strings.Count(strings.TrimSpace(out), "\n") + 1; n != len(c.want) {
					t.Errorf("%d lines for %d problems:\n%s", n, len(c.want), out)
				}
				if after := tree(t, runs); after != before {
					t.Errorf("ybbench %s changed the runs directory:\n--- before\n%s--- after\n%s", strings.Join(args, " "), before, after)
				}
			})
		}
	}
	// A runs directory that does not exist is not made.
	fresh := filepath.Join(dir, "fresh")
	cmd := exec.Command(bin, "run", "--inventory", noRoles, "--runs-dir", fresh, "--agent", bin)
	cmd.Env = append(environWithout("YBBENCH_"), "YBBENCH_TERRAFORM="+tf)
	if out, err := cmd.CombinedOutput(); err == nil {
		t.Errorf("run with a bad inventory succeeded:\n%s", out)
	}
	if _, err := os.Stat(fresh); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the runs directory was made: %v", err)
	}
}

// environWithout is this process's environment less the variables with
// a prefix.
func environWithout(prefix string) []string {
	var out []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, prefix) {
			out = append(out, kv)
		}
	}
	return out
}

// A history store that run cannot add to is refused before a run is
// created (exit 2, the runs directory as it was): a server that does not
// answer, a store a newer ybbench wrote, a URL of no known kind. The
// control: a store that opens, beside a bad setting, adds no line of its
// own to the refusal.
func TestBadHistoryStoreCreatesNoRun(t *testing.T) {
	bin := buildYbbench(t)
	dir := t.TempDir()
	runs := filepath.Join(dir, "runs")
	if err := os.MkdirAll(runs, 0o755); err != nil {
		t.Fatal(err)
	}
	tf := versionOnly(t, "1.5.7")
	newer := filepath.Join(dir, "newer.db")
	st, err := history.Open(t.Context(), newer)
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	db, err := sql.Open("sqlite", newer)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`INSERT INTO ybbench_history_schema (version, applied) VALUES (?, 'later')`, history.SchemaVersion+1); err != nil {
		t.Fatal(err)
	}
	db.Close()
	for _, c := range []struct {
		name string
		args []string
		want []string
	}{
		{"unreachable", []string{"--history-url", "postgres://u:secret@127.0.0.1:1/x?sslmode=disable"},
			[]string{"--history-url: history store postgres://u:xxxxx@127.0.0.1:1/x?sslmode=disable: cannot connect"}},
		{"newer schema", []string{"--history-url", newer}, []string{"--history-url: history store " + newer + ": written by a newer ybbench"}},
		{"unknown kind", []string{"--history-url", "mysql://h/db"}, []string{`--history-url: "mysql://h/db": want postgres://`}},
		{"control", []string{"--history-url", "sqlite:" + filepath.Join(dir, "ok.db"), "--records", "0"}, []string{"--records: 0"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			before := tree(t, runs)
			args := append([]string{"run", "--local", "--runs-dir", runs, "--agent", bin}, c.args...)
			cmd := exec.Command(bin, args...)
			cmd.Env = append(environWithout("YBBENCH_"), "YBBENCH_TERRAFORM="+tf, "XDG_DATA_HOME="+dir)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			err := cmd.Run()
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != 2 {
				t.Fatalf("ybbench %s: %v, want exit 2\n%s", strings.Join(args, " "), err, stderr.String())
			}
			out := strings.TrimSpace(stderr.String())
			for _, w := range c.want {
				if !strings.Contains(out, w) {
					t.Errorf("stderr lacks %q:\n%s", w, out)
				}
			}
			if n := strings.Count(out, "\n") + 1; n != len(c.want) || strings.Contains(out, "secret") {
				t.Errorf("%d lines for %d problems (or a password shown):\n%s", n, len(c.want), out)
			}
			if after := tree(t, runs); after != before {
				t.Errorf("the runs directory changed:\n%s\n%s", before, after)
			}
		})
	}
}
