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

var scripts = template.Must(template.Must(template.Must(template.New("").
	Funcs(provision.QuoteFuncs).
	Funcs(provision.OwnFuncs).
	Option("missingkey=error").
	Parse(shlib.Proc)).
	Parse(shlib.Own)).
	ParseFS(scriptFS, "scripts/*.sh.tmpl"))

func render(name string, data any) (string, error) {
	var b bytes.Buffer
	if err := scripts.ExecuteTemplate(&b, name, data); err != nil {
		return "", fmt.Errorf("render %s: %w", name, err)
	}
	return b.String(), nil
}

// layout is where the flavor keeps things on one host: everything inside
// the run's own directories (provision.OwnDir) — the software, logs and pid
// files under OwnDir(Base)/yugabyte, the data in OwnDir(d)/yugabyte-data
// for each data dir d (OwnDir(Base)/yugabyte-data when the host names
// none). Nothing of the flavor lies outside them, so a Release of the own
// directories removes all of it.
type layout struct {
	Base     string
	Own      string // OwnDir(Base)
	Root     string // Own/yugabyte
	Download string // Root/download
	Logs     string // Root/logs
	Run      string // Root/run (pid files)
	Tmp      string // Root/tmp (0700: the short-lived credential files)
	// Data are the servers' --fs_data_dirs, one in each own directory.
	Data []string
	// DataParents are the data dirs other than Base, whose own
	// directories the service user owns.
	DataParents []string
}

func layoutOf(h infra.Host) layout {
	own := provision.OwnDir(h.Base)
	root := path.Join(own, "yugabyte")
	l := layout{
		Base:     h.Base,
		Own:      own,
		Root:     root,
		Download: path.Join(root, "download"),
		Logs:     path.Join(root, "logs"),
		Run:      path.Join(root, "run"),
		Tmp:      path.Join(root, "tmp"),
		Data:     dataDirs(h),
	}
	for _, p := range provision.OwnParents(h) {
		if p != h.Base {
			l.DataParents = append(l.DataParents, p)
		}
	}
	return l
}

// dataDirName is the flavor's directory in an own directory for
// --fs_data_dirs (the servers make yb-data/ inside it).
const dataDirName = "yugabyte-data"

// dataDirs are the servers' --fs_data_dirs on a host: OwnDir(d)/yugabyte-data
// for each data dir d, or OwnDir(Base)/yugabyte-data.
func dataDirs(h infra.Host) []string {
	if len(h.DataDirs) == 0 {
		return []string{path.Join(provision.OwnDir(h.Base), dataDirName)}
	}
	out := make([]string, len(h.DataDirs))
	for i, d := range h.DataDirs {
		out[i] = path.Join(provision.OwnDir(d), dataDirName)
	}
	return out
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

// prepareData is the input of prepare.sh: the run's own directories
// claimed, OS checks and preparation, directories, and what the host
// already has of the tarball.
type prepareData struct {
	Host    string
	User    string
	Shared  bool
	THPDir  string
	Tarball string // where the tarball goes on the host
	// RunID and Version mark the own directories (provision.Mark).
	RunID, Version string
	layout
}

func renderPrepare(d prepareData) (string, error) { return render("prepare.sh.tmpl", d) }

// installData is the input of install.sh: fetch (for a URL), verify,
// extract, post_install.sh.
type installData struct {
	Host    string
	User    string
	Tarball string
	// Download is set for a URL: the script reads curl's configuration
	// (the full URL, then the .sha URL or an empty line) from its standard
	// input, so that a token in the URL is on no command line and in no
	// script; URL is the redacted URL, for messages only.
	Download bool
	URL      string
	// Proto is curl's --proto-redir list: a download that began over
	// https never follows a redirect to http.
	Proto  string
	SHA256 string // expected; empty when unknown
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

// stopData is the input of stop.sh: the servers to stop, in order, each
// with SIGTERM, a bounded wait, then SIGKILL.
type stopData struct {
	Host  string
	Grace int // seconds between SIGTERM and SIGKILL
	Procs []proc
	// RunID is the run whose servers are stopped: a stop leaves a ybbench/
	// that is not this run's alone.
	RunID string
	layout
}

func renderStop(d stopData) (string, error) { return render("stop.sh.tmpl", d) }

// authData is the input of auth.sh: the default passwords replaced by the
// generated ones (read from the script's standard input), and a login with
// them checked, against the tserver of this host.
type authData struct {
	Host     string
	Software string
	Addr     string // the tserver's private IP
	YSQLPort int
	YCQLPort int
	YSQL     bool   // the tservers serve YSQL
	User     string // the database user the clients use (both APIs)
	Timeout  int    // seconds to wait for a first login
	layout
}

func renderAuth(d authData) (string, error) { return render("auth.sh.tmpl", d) }

// renderStatus is the input of status.sh: whether each server runs, and the
// end of its output (for a readiness failure's message).
func renderStatus(d stopData) (string, error) { return render("status.sh.tmpl", d) }
