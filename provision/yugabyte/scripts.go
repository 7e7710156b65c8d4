package yugabyte

import (
	"bytes"
	"embed"
	"fmt"
	"path"
	"text/template"

	shlib "github.com/ybbench/ybbench/provision/scripts"

	"github.com/ybbench/ybbench/infra"
	"github.com/ybbench/ybbench/provision"
)

// The remote scripts live in scripts/*.sh.tmpl. They are rendered by pure
// functions below, with every value passed through q or qjoin
// (provision.QuoteFuncs), which quote it for bash; scripts_test.go checks
// that no template prints a value any other way, and compares each
// rendering with a golden file.
//
//go:embed scripts/*.sh.tmpl
var scriptFS embed.FS

var scripts = template.Must(template.Must(template.New("").
	Funcs(provision.QuoteFuncs).
	Option("missingkey=error").
	Parse(shlib.Proc)).
	ParseFS(scriptFS, "scripts/*.sh.tmpl"))

func render(name string, data any) (string, error) {
	var b bytes.Buffer
	if err := scripts.ExecuteTemplate(&b, name, data); err != nil {
		return "", fmt.Errorf("render %s: %w", name, err)
	}
	return b.String(), nil
}

// layout is where the flavor keeps things on one host: everything under
// Base/yugabyte, except the data, which goes to the data dirs.
type layout struct {
	Base     string
	Root     string // Base/yugabyte
	Download string // Root/download
	Logs     string // Root/logs
	Run      string // Root/run (pid files)
	// Data are the data dirs; DefaultData is set when they are the
	// default Base/data, which the flavor created and may remove.
	Data        []string
	DefaultData string
}

func layoutOf(h infra.Host) layout {
	root := path.Join(h.Base, "yugabyte")
	l := layout{
		Base:     h.Base,
		Root:     root,
		Download: path.Join(root, "download"),
		Logs:     path.Join(root, "logs"),
		Run:      path.Join(root, "run"),
		Data:     dataDirs(h),
	}
	if len(h.DataDirs) == 0 {
		l.DefaultData = l.Data[0]
	}
	return l
}

// dataDirs are the host's data dirs, or Base/data.
func dataDirs(h infra.Host) []string {
	if len(h.DataDirs) > 0 {
		return h.DataDirs
	}
	return []string{path.Join(h.Base, "data")}
}

// proc is one server process on a host, as the scripts see it.
type proc struct {
	Name    server
	PIDFile string
	Out     string // stdout and stderr of the process
	// Tag is put in the process's environment as YBBENCH_SERVER=<Tag>, so
	// that a stop never signals a process that merely reuses the pid.
	Tag string
}

func procOf(l layout, srv server) proc {
	return proc{
		Name:    srv,
		PIDFile: path.Join(l.Run, string(srv)+".pid"),
		Out:     path.Join(l.Logs, string(srv)+".out"),
		Tag:     path.Join(l.Root, string(srv)),
	}
}

// prepareData is the input of prepare.sh: OS checks and preparation,
// directories, and what the host already has of the tarball.
type prepareData struct {
	Host    string
	User    string
	Shared  bool
	THPDir  string
	Tarball string // where the tarball goes on the host
	layout
}

func renderPrepare(d prepareData) (string, error) { return render("prepare.sh.tmpl", d) }

// installData is the input of install.sh: fetch (for a URL), verify,
// extract, post_install.sh.
type installData struct {
	Host    string
	User    string
	Tarball string
	URL     string // empty for an uploaded tarball
	SHA256  string // expected; empty when unknown
	layout
}

func renderInstall(d installData) (string, error) { return render("install.sh.tmpl", d) }

// ulimit is one per-process limit of specs/yugabyte-deploy.md §2.2, in
// bash ulimit's option and units.
type ulimit struct {
	Item   string // limits.conf item
	Option string // bash ulimit option
	Value  string // in ulimit's units
}

// ulimits are the limits of specs/yugabyte-deploy.md §2.2 (D1), applied by
// the start script to the server it starts. Units are bash's: -l and -s in
// KiB (limits.conf's units too), -q in bytes.
var ulimits = []ulimit{
	{"core", "-c", "unlimited"},
	{"data", "-d", "unlimited"},
	{"fsize", "-f", "unlimited"},
	{"sigpending", "-i", "119934"},
	{"memlock", "-l", "64"},
	{"rss", "-m", "unlimited"},
	{"nofile", "-n", "1048576"},
	{"msgqueue", "-q", "819200"},
	{"stack", "-s", "8192"},
	{"cpu", "-t", "unlimited"},
	{"nproc", "-u", "12000"},
	{"locks", "-x", "unlimited"},
	{"as", "-v", "unlimited"},
}

// startData is the input of start.sh: one server on one host.
type startData struct {
	Host     string
	User     string
	Software string // the extracted tarball
	Flags    []string
	Limits   []ulimit
	proc
	layout
}

func renderStart(d startData) (string, error) { return render("start.sh.tmpl", d) }

// stopData is the input of stop.sh and wipe.sh: the servers to stop, in
// order, each with SIGTERM, a bounded wait, then SIGKILL.
type stopData struct {
	Host  string
	Grace int // seconds between SIGTERM and SIGKILL
	Procs []proc
	layout
}

func renderStop(d stopData) (string, error) { return render("stop.sh.tmpl", d) }

func renderWipe(d stopData) (string, error) { return render("wipe.sh.tmpl", d) }

// renderStatus is the input of status.sh: whether each server runs, and the
// end of its output (for a readiness failure's message).
func renderStatus(d stopData) (string, error) { return render("status.sh.tmpl", d) }
