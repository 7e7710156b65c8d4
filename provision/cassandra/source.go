package cassandra

import (
	"archive/tar"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// DefaultVersion is the Cassandra release the flavor and the test
// environment pin (VERSION in scripts/testenv/cassandra.sh).
const DefaultVersion = "5.0.9"

// FetchCommand fills the artifact cache: Maven fetches
// org.apache.cassandra:cassandra-all and its runtime dependencies from
// Maven Central into DefaultSource()/lib, and the repository's conf files
// are copied to DefaultSource()/conf.
const FetchCommand = "scripts/testenv/cassandra.sh fetch"

// DefaultSource is the artifact cache the flavor installs from when
// FlavorSpec.Source is empty, the one FetchCommand fills:
// ${YBBENCH_CACHE:-$HOME/.cache/ybbench}/cassandra/<DefaultVersion>/home,
// holding lib/ (the jars) and conf/ (jvm17.options, logback.xml).
func DefaultSource() string {
	cache := os.Getenv("YBBENCH_CACHE")
	if cache == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			home = "/root"
		}
		cache = filepath.Join(home, ".cache", "ybbench")
	}
	return filepath.Join(cache, "cassandra", DefaultVersion, "home")
}

// artifacts is a checked artifact cache on the orchestrator.
type artifacts struct {
	Dir     string
	Version string   // from lib/cassandra-all-<version>.jar
	Jar     string   // lib/cassandra-all-<version>.jar
	Jamm    string   // lib/jamm-<version>.jar, the -javaagent
	Options []string // conf/jvm17.options without comments and blank lines
	files   []string // what goes into the tarball: lib/** and conf/**, sorted
}

// SourceError is an artifact cache that is missing or incomplete; its
// message says how to fill it.
type SourceError struct {
	Dir     string
	Problem string
}

// Error says what is missing and how to fill the cache.
func (e *SourceError) Error() string {
	return fmt.Sprintf("cassandra: the artifact cache %s %s; fill it with `%s` (needs mvn and access to Maven Central; `make testenv` runs it too), "+
		"or point the source at a directory with lib/ (cassandra-all and its runtime jars) and conf/ (jvm17.options, logback.xml)", e.Dir, e.Problem, FetchCommand)
}

// readSource checks an artifact cache and reads what the flavor needs
// from it.
func readSource(dir string) (artifacts, error) {
	a := artifacts{Dir: dir}
	if !filepath.IsAbs(dir) {
		return a, &SourceError{Dir: dir, Problem: "is not an absolute path"}
	}
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return a, &SourceError{Dir: dir, Problem: "does not exist"}
	}
	jars, _ := filepath.Glob(filepath.Join(dir, "lib", "cassandra-all-*.jar"))
	if len(jars) != 1 {
		return a, &SourceError{Dir: dir, Problem: fmt.Sprintf("holds %d lib/cassandra-all-*.jar files, not one", len(jars))}
	}
	a.Jar = "lib/" + filepath.Base(jars[0])
	a.Version = strings.TrimSuffix(strings.TrimPrefix(filepath.Base(jars[0]), "cassandra-all-"), ".jar")
	jamm, _ := filepath.Glob(filepath.Join(dir, "lib", "jamm-*.jar"))
	if len(jamm) != 1 {
		return a, &SourceError{Dir: dir, Problem: fmt.Sprintf("holds %d lib/jamm-*.jar files, not one", len(jamm))}
	}
	a.Jamm = "lib/" + filepath.Base(jamm[0])
	// The fetch lists the jars it copied: a cache missing one is incomplete.
	if list, err := os.ReadFile(filepath.Join(dir, "lib.txt")); err == nil {
		for _, name := range strings.Fields(string(list)) {
			if _, err := os.Stat(filepath.Join(dir, "lib", name)); err != nil {
				return a, &SourceError{Dir: dir, Problem: fmt.Sprintf("lacks lib/%s (listed in lib.txt)", name)}
			}
		}
	}
	for _, f := range []string{"conf/logback.xml", "conf/jvm17.options"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			return a, &SourceError{Dir: dir, Problem: "has no " + f}
		}
	}
	opts, err := os.ReadFile(filepath.Join(dir, "conf", "jvm17.options"))
	if err != nil {
		return a, err
	}
	a.Options = parseJVMOptions(string(opts))
	for _, sub := range []string{"lib", "conf"} {
		err := filepath.WalkDir(filepath.Join(dir, sub), func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.Type().IsRegular() {
				rel, _ := filepath.Rel(dir, p)
				a.files = append(a.files, filepath.ToSlash(rel))
			} else if !d.IsDir() {
				return fmt.Errorf("%s is neither a file nor a directory", p)
			}
			return nil
		})
		if err != nil {
			return a, fmt.Errorf("cassandra: reading the artifact cache: %w", err)
		}
	}
	sort.Strings(a.files)
	return a, nil
}

// parseJVMOptions reads a jvm options file: one option per line, '#'
// starts a comment line, blank lines are skipped.
func parseJVMOptions(text string) []string {
	var out []string
	for _, l := range strings.Split(text, "\n") {
		l = strings.TrimSpace(l)
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		out = append(out, l)
	}
	return out
}

// digest is a sha256 over the tarball's content: each file's path, mode
// and content, in order. Equal digests, equal tarballs.
func (a artifacts) digest() (string, error) {
	h := sha256.New()
	for _, f := range a.files {
		st, err := os.Stat(filepath.Join(a.Dir, f))
		if err != nil {
			return "", err
		}
		fh := sha256.New()
		if err := copyFile(fh, filepath.Join(a.Dir, f)); err != nil {
			return "", err
		}
		fmt.Fprintf(h, "%s\x00%o\x00%x\n", f, fileMode(st.Mode()), fh.Sum(nil))
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

func copyFile(w io.Writer, name string) error {
	f, err := os.Open(name)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = io.Copy(w, f)
	return err
}

// fileMode is the mode a file gets in the tarball: 0755 for an executable,
// 0644 otherwise.
func fileMode(m fs.FileMode) int64 {
	if m&0o111 != 0 {
		return 0o755
	}
	return 0o644
}

// tarEpoch is the modification time of every tarball entry, so a tarball
// depends on nothing but the files' paths, modes and contents.
var tarEpoch = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)

// tarball is the artifacts' upload: a gzipped tar of lib/ and conf/.
type tarball struct {
	Path   string
	Name   string
	SHA256 string
	Size   int64
	Built  bool // built by this call (else reused from the cache)
}

// ensureTarball returns the tarball of the artifacts in cacheDir, building
// it once: it is named by the artifacts' digest, so a cache whose files
// change gets a new one. Its bytes depend only on the files (fixed times,
// owners and order), so rebuilding it gives the same sha256.
func ensureTarball(a artifacts, cacheDir string) (tarball, error) {
	dg, err := a.digest()
	if err != nil {
		return tarball{}, fmt.Errorf("cassandra: reading the artifact cache: %w", err)
	}
	t := tarball{Name: fmt.Sprintf("cassandra-%s-%s.tar.gz", a.Version, dg[:16])}
	t.Path = filepath.Join(cacheDir, t.Name)
	if _, err := os.Stat(t.Path); errors.Is(err, fs.ErrNotExist) {
		if err := os.MkdirAll(cacheDir, 0o755); err != nil {
			return t, fmt.Errorf("cassandra: the tarball cache: %w", err)
		}
		if err := writeTarball(a, t.Path); err != nil {
			return t, fmt.Errorf("cassandra: building %s: %w", t.Path, err)
		}
		t.Built = true
	}
	f, err := os.Open(t.Path)
	if err != nil {
		return t, err
	}
	defer f.Close()
	h := sha256.New()
	if t.Size, err = io.Copy(h, f); err != nil {
		return t, err
	}
	t.SHA256 = hex.EncodeToString(h.Sum(nil))
	return t, nil
}

// writeTarball writes the tarball to a temporary name beside dst and
// renames it, so a reader never sees half of one.
func writeTarball(a artifacts, dst string) (err error) {
	tmp, err := os.CreateTemp(filepath.Dir(dst), "."+filepath.Base(dst)+".*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	gz, err := gzip.NewWriterLevel(tmp, gzip.BestSpeed) // jars are compressed already
	if err != nil {
		return err
	}
	tw := tar.NewWriter(gz)
	dirs := map[string]bool{}
	for _, f := range a.files {
		// Parent directories first, each once.
		var parents []string
		for d := filepath.ToSlash(filepath.Dir(f)); d != "." && !dirs[d]; d = filepath.ToSlash(filepath.Dir(d)) {
			parents = append(parents, d)
		}
		for i := len(parents) - 1; i >= 0; i-- {
			dirs[parents[i]] = true
			if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: parents[i] + "/", Mode: 0o755, ModTime: tarEpoch, Format: tar.FormatPAX}); err != nil {
				return err
			}
		}
		st, err := os.Stat(filepath.Join(a.Dir, f))
		if err != nil {
			return err
		}
		hdr := &tar.Header{Typeflag: tar.TypeReg, Name: f, Mode: fileMode(st.Mode()), Size: st.Size(), ModTime: tarEpoch, Format: tar.FormatPAX}
		if err := tw.WriteHeader(hdr); err != nil {
			return err
		}
		if err := copyFile(tw, filepath.Join(a.Dir, f)); err != nil {
			return err
		}
	}
	if err := tw.Close(); err != nil {
		return err
	}
	if err := gz.Close(); err != nil {
		return err
	}
	if err := tmp.Chmod(0o644); err != nil {
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), dst)
}
