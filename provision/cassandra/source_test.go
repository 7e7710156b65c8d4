package cassandra

import (
	"archive/tar"
	"compress/gzip"
	"errors"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// fakeSource writes a small artifact cache: what readSource needs, with
// stand-in jars.
func fakeSource(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "home")
	files := map[string]string{
		"lib/cassandra-all-5.0.9.jar": "not really a jar",
		"lib/jamm-0.4.0.jar":          "agent",
		"lib/netty-all-4.1.jar":       "netty",
		"conf/logback.xml":            "<configuration/>\n",
		"conf/jvm17.options":          "# comment\n-XX:+UseG1GC\n\n  -Xss256k  \n--add-opens=java.base/java.lang=ALL-UNNAMED\n",
		"conf/cassandra.yaml.in":      "cluster_name: x\n",
		"lib.txt":                     "cassandra-all-5.0.9.jar\njamm-0.4.0.jar\nnetty-all-4.1.jar\n",
		".complete":                   "org.apache.cassandra:cassandra-all:5.0.9\n",
	}
	for name, text := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestReadSource(t *testing.T) {
	dir := fakeSource(t)
	a, err := readSource(dir)
	if err != nil {
		t.Fatal(err)
	}
	if a.Version != "5.0.9" || a.Jar != "lib/cassandra-all-5.0.9.jar" || a.Jamm != "lib/jamm-0.4.0.jar" {
		t.Errorf("%+v", a)
	}
	if got := strings.Join(a.Options, " "); got != "-XX:+UseG1GC -Xss256k --add-opens=java.base/java.lang=ALL-UNNAMED" {
		t.Errorf("options %q", got)
	}
	if got := strings.Join(a.files, " "); got != "conf/cassandra.yaml.in conf/jvm17.options conf/logback.xml lib/cassandra-all-5.0.9.jar lib/jamm-0.4.0.jar lib/netty-all-4.1.jar" {
		t.Errorf("files %q", got)
	}

	// What is missing is named, with the way to fill the cache.
	for _, c := range []struct {
		name    string
		breakIt func(dir string)
		want    string
	}{
		{"no dir", func(dir string) { os.RemoveAll(dir) }, "does not exist"},
		{"no jar", func(dir string) { os.Remove(filepath.Join(dir, "lib/cassandra-all-5.0.9.jar")) }, "holds 0 lib/cassandra-all-*.jar"},
		{"no jamm", func(dir string) { os.Remove(filepath.Join(dir, "lib/jamm-0.4.0.jar")) }, "holds 0 lib/jamm-*.jar"},
		{"half fetched", func(dir string) { os.Remove(filepath.Join(dir, "lib/netty-all-4.1.jar")) }, "lacks lib/netty-all-4.1.jar"},
		{"no options", func(dir string) { os.Remove(filepath.Join(dir, "conf/jvm17.options")) }, "has no conf/jvm17.options"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := fakeSource(t)
			c.breakIt(dir)
			_, err := readSource(dir)
			var se *SourceError
			if !errors.As(err, &se) || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), FetchCommand) {
				t.Errorf("%v, want a SourceError saying %q and how to fill the cache", err, c.want)
			}
		})
	}
	if _, err := readSource("relative/home"); err == nil {
		t.Errorf("a relative source was accepted")
	}
}

func TestTarballIsBuiltOnceAndReproducible(t *testing.T) {
	a, err := readSource(fakeSource(t))
	if err != nil {
		t.Fatal(err)
	}
	d1, d2 := t.TempDir(), t.TempDir()
	t1, err := ensureTarball(a, d1)
	if err != nil || !t1.Built {
		t.Fatalf("%+v %v", t1, err)
	}
	again, err := ensureTarball(a, d1)
	if err != nil || again.Built || again.SHA256 != t1.SHA256 || again.Path != t1.Path {
		t.Errorf("second call: %+v %v, want the same tarball reused", again, err)
	}
	// Elsewhere, later, with other file times: the same bytes.
	for _, f := range a.files {
		later := time.Now().Add(time.Hour)
		if err := os.Chtimes(filepath.Join(a.Dir, f), later, later); err != nil {
			t.Fatal(err)
		}
	}
	t2, err := ensureTarball(a, d2)
	if err != nil || t2.SHA256 != t1.SHA256 || t2.Name != t1.Name {
		t.Errorf("rebuilt: %+v, first %+v (%v)", t2, t1, err)
	}
	if !regexp.MustCompile(`^cassandra-5\.0\.9-[0-9a-f]{16}\.tar\.gz$`).MatchString(t1.Name) {
		t.Errorf("name %q", t1.Name)
	}
	// Changed content, new tarball.
	if err := os.WriteFile(filepath.Join(a.Dir, "conf/logback.xml"), []byte("<configuration debug=\"true\"/>\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t3, err := ensureTarball(a, d1)
	if err != nil || !t3.Built || t3.Name == t1.Name {
		t.Errorf("changed cache: %+v %v, want a new tarball", t3, err)
	}
	// What is inside: lib/ and conf/, nothing else, root-owned, fixed times.
	f, err := os.Open(t1.Path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(gz)
	var names []string
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, h.Name)
		if h.Uid != 0 || h.Gid != 0 || !h.ModTime.Equal(tarEpoch) {
			t.Errorf("%s: uid %d gid %d time %v", h.Name, h.Uid, h.Gid, h.ModTime)
		}
	}
	if got := strings.Join(names, " "); got != "conf/ conf/cassandra.yaml.in conf/jvm17.options conf/logback.xml lib/ lib/cassandra-all-5.0.9.jar lib/jamm-0.4.0.jar lib/netty-all-4.1.jar" {
		t.Errorf("entries: %s", got)
	}
}

func TestDefaultSourceFollowsTheTestEnvironment(t *testing.T) {
	t.Setenv("YBBENCH_CACHE", "/var/cache/x")
	if got := DefaultSource(); got != "/var/cache/x/cassandra/"+DefaultVersion+"/home" {
		t.Errorf("DefaultSource() = %s", got)
	}
	// The flavor and scripts/testenv/cassandra.sh pin the same release.
	script, err := os.ReadFile("../../scripts/testenv/cassandra.sh")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^VERSION=(\S+)$`).FindSubmatch(script)
	if m == nil || string(m[1]) != DefaultVersion {
		t.Errorf("scripts/testenv/cassandra.sh pins %q, the flavor %s", m, DefaultVersion)
	}
	if !strings.Contains(string(script), "\nfetch)") {
		t.Errorf("scripts/testenv/cassandra.sh has no fetch command (FetchCommand = %q)", FetchCommand)
	}
}

func TestParseJVMOptionsOfTheRepository(t *testing.T) {
	text, err := os.ReadFile("../../scripts/testenv/cassandra/jvm17.options")
	if err != nil {
		t.Fatal(err)
	}
	opts := parseJVMOptions(string(text))
	joined := strings.Join(opts, " ")
	for _, want := range []string{"--add-exports=java.base/jdk.internal.misc=ALL-UNNAMED", "--add-opens=java.base/java.nio=ALL-UNNAMED", "-Djdk.attach.allowAttachSelf=true"} {
		if !strings.Contains(joined, want) {
			t.Errorf("options lack %s", want)
		}
	}
	for _, o := range opts {
		if strings.HasPrefix(o, "#") || strings.HasPrefix(o, "-Xm") || strings.Contains(o, " ") {
			t.Errorf("option %q: a comment, a heap size (the flavor sets it) or two words", o)
		}
	}
}
