package agentrun

import (
	"embed"
	"path"

	"github.com/ybbench/ybbench/infra"
	"github.com/ybbench/ybbench/provision"
)

//go:embed scripts/*.sh.tmpl
var templates embed.FS

// render renders scripts/<name>.sh.tmpl with data; the templates quote
// every value with q or qjoin.
func render(name string, data any) (string, error) {
	b, err := templates.ReadFile("scripts/" + name + ".sh.tmpl")
	if err != nil {
		return "", err
	}
	return provision.RenderWith(name, string(b), data, nil)
}

// Dir is where an agent's files live on its host: inside the run's own
// directory under the host's base (claimed before anything goes in).
func Dir(h infra.Host) string { return path.Join(provision.OwnDir(h.Base), "agent") }

// Bin is the shipped agent on its host.
func Bin(h infra.Host) string { return path.Join(provision.OwnDir(h.Base), "bin", "ybload") }

// ShipScript makes the agent's directories on h and prints the sha256 of
// the agent there ("" when there is none) and the host's machine type, as
// one JSON object.
func ShipScript(h infra.Host) (string, error) {
	return render("ship", struct{ Dir, BinDir, Bin string }{Dir(h), path.Dir(Bin(h)), Bin(h)})
}

// StartScript runs inv's agent for phase ph on h in the foreground, its
// pid in <phase>.pid and its standard output in <phase>.dat.
func StartScript(h infra.Host, ph Phase, inv Invocation) (string, error) {
	return render("start", struct {
		Dir, PidFile, Bin, Output string
		Args                      []string
	}{Dir(h), ph.FileBase() + ".pid", Bin(h), ph.FileBase() + ".dat", inv.Args()})
}

// StopScript asks every agent running on h to stop and write what it
// measured.
func StopScript(h infra.Host) (string, error) {
	return render("stop", struct{ Dir string }{Dir(h)})
}

// FetchScript lists which of names the agent wrote in its directory on h.
func FetchScript(h infra.Host, names []string) (string, error) {
	return render("fetch", struct {
		Dir   string
		Names []string
	}{Dir(h), names})
}

// Whose processes a host's reading counts as the tool's own.
const (
	OwnDatabase = "database" // a db host: the service user's processes
	OwnAgent    = "agent"    // a client: the agent's (ybload) processes
)

// CPUScript reads a host's counters count times, every seconds apart,
// each reading one JSON line (a hostcpu.Sample): the node's /proc/stat on
// a host with its own kernel, the CPU time of the tool's own processes
// (own: OwnDatabase or OwnAgent) on one that shares this machine's, and
// beside it the counters the attribution of a run's limit reads. One
// session for a phase's readings: a session each would cost the host
// (its sshd) far more than the reading.
func CPUScript(h infra.Host, own string, count, every int) (string, error) {
	return render("cpu", struct {
		Shared           bool
		ServiceUser, Own string
		Count, Every     int
	}{h.Shared, h.ServiceUser, own, count, every})
}
