package local

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/ybbench/ybbench/infra"
	"github.com/ybbench/ybbench/infra/terraform"
	"github.com/ybbench/ybbench/internal/exitcode"
	"github.com/ybbench/ybbench/internal/shellquote"
)

// Destroy removes the run's hosts with `terraform destroy`, then verifies
// that nothing of the run remains: no namespace or link with the run's
// names, no sshd of the run, nothing listening on the subnet's addresses.
// When something does remain (Terraform failed, or a host was left tainted
// by a failed create, whose destroy provisioner Terraform skips), it runs the
// run's hosts.sh down --all, as a user would, and verifies again. It works
// from the cluster's Meta alone (cluster.json), even after the orchestrator
// was killed.
//
// The error, if any, is a *RemainsError classified exitcode.Teardown: what
// remains and the commands that remove it.
func (p *Provider) Destroy(ctx context.Context, c *infra.Cluster) error {
	if err := requireRoot("Destroy"); err != nil {
		return err
	}
	if c == nil || c.Meta[MetaRunDir] == "" {
		return exitcode.Errorf(exitcode.Config, "local provider: Destroy: the cluster has no %q in its meta (not made by the local provider?)", MetaRunDir)
	}
	runDir := c.Meta[MetaRunDir]
	n := namesFor(c.Name)
	if b := c.Meta[MetaBridge]; b != "" {
		n.bridge = b
	}
	subnet, _ := netip.ParsePrefix(c.Meta[MetaSubnet]) // invalid: no socket check
	script := c.Meta[MetaScript]
	if script == "" {
		script = filepath.Join(runDir, "bin", "hosts.sh")
	}
	log := p.log.With("run", c.Name)

	stack, tfErr := terraform.New(ctx, nil, runDir, terraform.Binary(p.terraformBin), terraform.Logger(log))
	if tfErr == nil {
		tfErr = stack.Destroy(ctx)
	}
	if tfErr != nil {
		log.Warn("terraform destroy failed; checking what remains", "err", tfErr)
	}

	sweep := []string{script, "down", "--all", "--run-id", c.Name, "--run-dir", runDir, "--bridge", n.bridge}
	if subnet.IsValid() {
		sweep = append(sweep, "--subnet", subnet.String())
	}
	left, err := remains(ctx, n, subnet, runDir)
	if err != nil {
		return exitcode.Wrap(exitcode.Teardown, fmt.Errorf("local provider: cannot verify the teardown of run %s: %w (check with `ip netns list`, `ip link`; remove with: %s)", c.Name, err, shellquote.Join(sweep)))
	}
	if len(left) > 0 {
		log.Warn("left behind after terraform destroy; removing with hosts.sh down --all", "remains", describe(left))
		if _, err := os.Stat(script); err != nil {
			if err := writeScript(script); err != nil {
				log.Warn("cannot restore hosts.sh", "err", err)
			}
		}
		cmd := exec.CommandContext(ctx, sweep[0], sweep[1:]...)
		if out, err := cmd.CombinedOutput(); err != nil {
			log.Warn("hosts.sh down --all failed", "err", err, "output", strings.TrimSpace(string(out)))
		}
		if left, err = remains(ctx, n, subnet, runDir); err != nil {
			return exitcode.Wrap(exitcode.Teardown, fmt.Errorf("local provider: cannot verify the teardown of run %s: %w", c.Name, err))
		}
	}
	if len(left) == 0 {
		if tfErr != nil {
			log.Warn("terraform destroy failed but nothing of the run remains; its state in the run directory is stale", "err", tfErr)
		}
		log.Info("local hosts destroyed, nothing remains")
		return nil
	}
	e := &RemainsError{Run: c.Name, Remains: describe(left), Cause: tfErr}
	e.Commands = append(e.Commands, shellquote.Join(sweep))
	for _, r := range left {
		if r.kill != 0 {
			e.Commands = append(e.Commands, fmt.Sprintf("kill %d", r.kill))
		}
	}
	return exitcode.Wrap(exitcode.Teardown, e)
}

// RemainsError is a teardown that could not finish: what of the run remains
// and the commands that remove it.
type RemainsError struct {
	Run      string
	Remains  []string
	Commands []string
	// Cause is terraform destroy's error, if it failed.
	Cause error
}

func (e *RemainsError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "teardown of local run %s is incomplete", e.Run)
	if e.Cause != nil {
		fmt.Fprintf(&b, " (%v)", e.Cause)
	}
	b.WriteString("; these remain:")
	for _, r := range e.Remains {
		b.WriteString("\n  " + r)
	}
	b.WriteString("\nremove them with:")
	for _, c := range e.Commands {
		b.WriteString("\n  " + c)
	}
	return b.String()
}

// Unwrap returns terraform destroy's error.
func (e *RemainsError) Unwrap() error { return e.Cause }

// remain is one thing of the run still on the machine.
type remain struct {
	what string
	kill int // a process outside any namespace of the run, removed by pid
}

func describe(rs []remain) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = r.what
	}
	return out
}

// remains lists what of the run is still on the machine. Processes are found
// through the run's pid files and namespaces, and through sshd command lines
// naming the run's own sshd_config files (to report, never to kill by).
func remains(ctx context.Context, n names, subnet netip.Prefix, runDir string) ([]remain, error) {
	var out []remain

	nsOut, err := command(ctx, "ip", "-j", "netns", "list")
	if err != nil {
		return nil, err
	}
	var nss []struct {
		Name string `json:"name"`
	}
	if len(bytes.TrimSpace(nsOut)) > 0 { // no namespaces at all: no output, not []
		if err := json.Unmarshal(nsOut, &nss); err != nil {
			return nil, fmt.Errorf("ip -j netns list: %w", err)
		}
	}
	for _, ns := range nss {
		if !strings.HasPrefix(ns.Name, n.prefix+"-") {
			continue
		}
		what := "network namespace " + ns.Name
		if pids, err := command(ctx, "ip", "netns", "pids", ns.Name); err == nil && len(bytes.TrimSpace(pids)) > 0 {
			what += " with processes " + strings.Join(strings.Fields(string(pids)), " ")
		}
		out = append(out, remain{what: what})
	}

	linkOut, err := command(ctx, "ip", "-j", "link", "show")
	if err != nil {
		return nil, err
	}
	var links []struct {
		Name string `json:"ifname"`
	}
	if err := json.Unmarshal(linkOut, &links); err != nil {
		return nil, fmt.Errorf("ip -j link show: %w", err)
	}
	for _, l := range links {
		if l.Name == n.bridge || strings.HasPrefix(l.Name, n.prefix) {
			out = append(out, remain{what: "link " + l.Name})
		}
	}

	for _, pid := range sshds(runDir) {
		out = append(out, remain{what: fmt.Sprintf("process %d: an sshd of the run (%s)", pid, cmdline(pid)), kill: pid})
	}

	if subnet.IsValid() {
		ssOut, err := command(ctx, "ss", "-H", "-l", "-t", "-u", "-n")
		if err != nil {
			return nil, err
		}
		for _, line := range strings.Split(string(ssOut), "\n") {
			f := strings.Fields(line)
			if len(f) < 5 {
				continue
			}
			local := f[4]
			host, _, ok := cutLast(local, ":")
			if !ok {
				continue
			}
			host, _, _ = strings.Cut(strings.Trim(host, "[]"), "%")
			if a, err := netip.ParseAddr(host); err == nil && subnet.Contains(a.Unmap()) {
				out = append(out, remain{what: fmt.Sprintf("%s socket listening on %s", f[0], local)})
			}
		}
	}
	return out, nil
}

// sshds returns the live sshd processes of the run: those of its pid files,
// and any whose command line names one of its sshd_config files.
func sshds(runDir string) []int {
	var pids []int
	mark := filepath.Join(runDir, "hosts") + "/"
	files, _ := filepath.Glob(filepath.Join(runDir, "hosts", "*", "ssh", "sshd.pid"))
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && ourSSHD(pid, mark) {
			pids = append(pids, pid)
		}
	}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || slices.Contains(pids, pid) {
			continue
		}
		if ourSSHD(pid, mark) {
			pids = append(pids, pid)
		}
	}
	slices.Sort(pids)
	return pids
}

// ourSSHD reports whether pid is a live (not zombie) sshd whose command line
// names a config under the run's hosts directory. sshd rewrites its command
// line (setproctitle), so the path is looked for inside it.
func ourSSHD(pid int, hostsDir string) bool {
	comm, err := os.ReadFile(fmt.Sprintf("/proc/%d/comm", pid))
	if err != nil || strings.TrimSpace(string(comm)) != "sshd" {
		return false
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	if i := bytes.LastIndexByte(stat, ')'); i < 0 || i+2 >= len(stat) || stat[i+2] == 'Z' {
		return false // an exited sshd its reaper has not collected holds nothing
	}
	cl := cmdline(pid)
	return strings.Contains(cl, hostsDir) && strings.Contains(cl, "/ssh/sshd_config")
}

func cmdline(pid int) string {
	b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	return strings.TrimSpace(string(bytes.ReplaceAll(b, []byte{0}, []byte{' '})))
}

// command runs a short inspection command and returns its stdout.
func command(ctx context.Context, name string, args ...string) ([]byte, error) {
	var stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w: %s", name, strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return out, nil
}

func cutLast(s, sep string) (before, after string, found bool) {
	if i := strings.LastIndex(s, sep); i >= 0 {
		return s[:i], s[i+len(sep):], true
	}
	return s, "", false
}
