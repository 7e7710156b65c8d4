package cassandra

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"net"
	"path"
	"regexp"
	"sort"
	"strconv"
	"text/template"

	"github.com/ybbench/ybbench/provision/scripts"

	"github.com/ybbench/ybbench/infra"
	"github.com/ybbench/ybbench/provision"
)

// The remote scripts live in scripts/*.sh.tmpl, each rendered together
// with scripts/lib.sh.tmpl by provision.RenderWith, so every value reaches
// bash through q or qjoin (render_test.go checks that no template prints a
// value any other way). scripts/cassandra.yaml.tmpl is the node's
// configuration, whose values go through y (a quoted YAML string) or raw
// (a validated token). All render functions are pure.
//
//go:embed scripts/*.tmpl
var scriptFS embed.FS

// Ports of every node (Cassandra's defaults, as clients expect them).
const (
	NativePort  = 9042 // CQL
	StoragePort = 7000 // internode
)

// layout is where the flavor keeps things on one host: everything inside
// the run's own directories (provision.OwnDir), Base/ybbench/cassandra for
// the software, configuration and logs, <data dir>/ybbench/cassandra for
// the data; a directory a user already has (such as a distribution's
// <data dir>/cassandra) is never used or removed.
type layout struct {
	Base string
	Own  string // Base/ybbench: the run's own directory under the base
	Root string // Base/ybbench/cassandra
	Dist string // Root/dist: the uploaded tarball, until extracted
	Home string // Root/home: the artifacts (lib/, conf/)
	Conf string // Root/conf: this node's cassandra.yaml, logback.xml, command line
	Logs string // Root/logs: system.log, cassandra.out
	Run  string // Root/run: the pid file
	Tmp  string // Root/tmp: the JVM's temporary files (JNA's native stub)
	// DataRoots are <data dir>/ybbench/cassandra for every data dir
	// (Root/data when the host names none, or for a data dir that is the
	// base itself); the first also holds the commit log, hints, saved
	// caches and CDC.
	DataRoots []string
	// Parents are the directories whose own directories (Parent/ybbench)
	// the run claims before writing and releases on Wipe: Base and every
	// data dir.
	Parents []string
	PIDFile string
	Out     string // the JVM's stdout and stderr
	Log     string // Cassandra's system.log
	// Tag is put in the node's environment as YBBENCH_SERVER=<Tag>, so
	// that a stop never signals a process that merely reuses the pid.
	Tag string
}

func layoutOf(h infra.Host) layout {
	root := path.Join(provision.OwnDir(h.Base), "cassandra")
	l := layout{
		Base:    h.Base,
		Own:     provision.OwnDir(h.Base),
		Root:    root,
		Dist:    path.Join(root, "dist"),
		Home:    path.Join(root, "home"),
		Conf:    path.Join(root, "conf"),
		Logs:    path.Join(root, "logs"),
		Run:     path.Join(root, "run"),
		Tmp:     path.Join(root, "tmp"),
		PIDFile: path.Join(root, "run", "cassandra.pid"),
		Out:     path.Join(root, "logs", "cassandra.out"),
		Log:     path.Join(root, "logs", "system.log"),
		Tag:     path.Join(root, "cassandra"),
		Parents: provision.OwnParents(h),
	}
	for _, d := range h.DataDirs {
		if d == h.Base {
			// Root itself belongs to root; the data needs a directory of
			// the service user's.
			l.DataRoots = append(l.DataRoots, path.Join(root, "data"))
			continue
		}
		l.DataRoots = append(l.DataRoots, path.Join(provision.OwnDir(d), "cassandra"))
	}
	if len(l.DataRoots) == 0 {
		l.DataRoots = []string{path.Join(root, "data")}
	}
	return l
}

// Writable are the directories the service user writes.
func (l layout) Writable() []string { return append([]string{l.Logs, l.Tmp}, l.DataRoots...) }

// render renders scripts/<name>.sh.tmpl with the shared functions of
// scripts/lib.sh.tmpl.
func render(name string, data any) (string, error) {
	lib, err := scriptFS.ReadFile("scripts/lib.sh.tmpl")
	if err != nil {
		return "", err
	}
	text, err := scriptFS.ReadFile("scripts/" + name + ".sh.tmpl")
	if err != nil {
		return "", err
	}
	s, err := provision.RenderWith(name, scripts.Proc+scripts.Own+string(lib)+string(text), data, provision.OwnFuncs)
	if err != nil {
		return "", fmt.Errorf("cassandra: render %s: %w", name, err)
	}
	return s, nil
}

// prepareData is the input of prepare.sh: tools, service user, Java,
// directories, what the host has.
type prepareData struct {
	Host, User string
	Shared     bool
	Java       string // the java setting; "" to look for one
	// RunID and Version mark the own directories the script claims.
	RunID, Version string
	layout
}

func renderPrepare(d prepareData) (string, error) { return render("prepare", d) }

// installData is the input of install.sh: check and extract the tarball.
type installData struct {
	Host, User string
	Tarball    string // on the host
	SHA256     string
	Jar        string // lib/cassandra-all-<version>.jar, relative to Home
	JavaBin    string // the java the node will run
	layout
}

func renderInstall(d installData) (string, error) { return render("install", d) }

// startData is the input of start.sh: one node.
type startData struct {
	Host, User  string
	Address     string // the node's PrivateIP
	NativePort  int
	StoragePort int
	Grace       int    // seconds between SIGTERM and SIGKILL when restarting
	YAML        string // the node's cassandra.yaml
	Command     []string
	layout
}

func renderStart(d startData) (string, error) { return render("start", d) }

// stopData is the input of stop.sh, wipe.sh and status.sh.
type stopData struct {
	Host  string
	Grace int
	// RunID is the run whose own directories wipe.sh releases.
	RunID string
	layout
}

func renderStop(d stopData) (string, error)   { return render("stop", d) }
func renderWipe(d stopData) (string, error)   { return render("wipe", d) }
func renderStatus(d stopData) (string, error) { return render("status", d) }

// kv is one scalar of cassandra.yaml.
type kv struct{ Key, Value string }

// yamlData is the input of cassandra.yaml.tmpl: one node.
type yamlData struct {
	Host        string
	ClusterName string
	Token       string
	Seeds       string // host:port of the seed
	Address     string
	NativePort  int
	StoragePort int
	DataFiles   []string
	CommitLog   string
	Hints       string
	SavedCaches string
	CDCRaw      string
	// Authenticator is PasswordAuthenticator, or AllowAllAuthenticator
	// for a run without authentication (--db-auth=off).
	Authenticator string
	// Tunables are the flavor's defaults for the keys a run may set,
	// overridden by the run's settings, in key order.
	Tunables []kv
}

// tunableDefaults are the flavor's values for keys a run may change
// (yamlKeys); the other tunables keep Cassandra's own defaults, most of
// which follow the heap.
var tunableDefaults = map[string]string{
	"commitlog_sync_period":    "10000ms",
	"memtable_allocation_type": "heap_buffers",
}

// tunables merges the run's yaml settings over the flavor's defaults.
func tunables(overrides map[string]string) []kv {
	m := map[string]string{}
	for k, v := range tunableDefaults {
		m[k] = v
	}
	for k, v := range overrides {
		m[k] = v
	}
	out := make([]kv, 0, len(m))
	for k, v := range m {
		out = append(out, kv{k, v})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out
}

// nodeYAML is one node's cassandra.yaml data.
func nodeYAML(h infra.Host, clusterName, token, seed string, noAuth bool, overrides map[string]string) yamlData {
	l := layoutOf(h)
	auth := "PasswordAuthenticator"
	if noAuth {
		auth = "AllowAllAuthenticator"
	}
	d := yamlData{
		Host:          h.Name,
		Authenticator: auth,
		ClusterName:   clusterName,
		Token:         token,
		Seeds:         net.JoinHostPort(seed, strconv.Itoa(StoragePort)),
		Address:       h.PrivateIP,
		NativePort:    NativePort,
		StoragePort:   StoragePort,
		CommitLog:     path.Join(l.DataRoots[0], "commitlog"),
		Hints:         path.Join(l.DataRoots[0], "hints"),
		SavedCaches:   path.Join(l.DataRoots[0], "saved_caches"),
		CDCRaw:        path.Join(l.DataRoots[0], "cdc_raw"),
		Tunables:      tunables(overrides),
	}
	for _, r := range l.DataRoots {
		d.DataFiles = append(d.DataFiles, path.Join(r, "data"))
	}
	return d
}

var rawToken = regexp.MustCompile(`^-?[A-Za-z0-9_/]+$`)

// renderYAML renders a node's cassandra.yaml.
func renderYAML(d yamlData) (string, error) {
	text, err := scriptFS.ReadFile("scripts/cassandra.yaml.tmpl")
	if err != nil {
		return "", err
	}
	t, err := template.New("cassandra.yaml").Option("missingkey=error").Funcs(yamlFuncs).Parse(string(text))
	if err != nil {
		return "", err
	}
	var b bytes.Buffer
	if err := t.Execute(&b, d); err != nil {
		return "", fmt.Errorf("cassandra: render cassandra.yaml: %w", err)
	}
	return b.String(), nil
}

var yamlFuncs = template.FuncMap{
	// y is a double-quoted YAML scalar (JSON's string syntax is YAML's).
	"y": func(v any) (string, error) {
		b, err := json.Marshal(fmt.Sprint(v))
		return string(b), err
	},
	// raw writes a validated token as is: digits, letters, '_', '/', and
	// a leading '-'; anything else is an error, never written.
	"raw": func(v any) (string, error) {
		s := fmt.Sprint(v)
		if !rawToken.MatchString(s) {
			return "", fmt.Errorf("%q is not a plain YAML token", s)
		}
		return s, nil
	},
}
