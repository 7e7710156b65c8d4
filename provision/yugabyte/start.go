package yugabyte

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/ybbench/ybbench/infra"
	"github.com/ybbench/ybbench/internal/shellquote"
	"github.com/ybbench/ybbench/provision"
)

// startCluster stops what an earlier Install left running (a server still
// running would hold its ports), starts the masters and waits for a
// leader, then the tservers, and waits until the cluster is whole
// (ready.go). It returns the master leader; the deployment records each
// server's flags and limits and what readiness saw.
func (f *Flavor) startCluster(ctx context.Context, r provision.Runner, p plan, par provision.ParallelOptions, software map[string]string, dep *provision.Deployment, log *slog.Logger) (infra.Host, error) {
	if err := f.stopServers(ctx, r, p.mark.RunID, p.db, log.With("stage", "stop-previous")); err != nil {
		return infra.Host{}, err
	}
	t := p.topology()
	api := f.api(r)
	progress := func(stage string) func(string) {
		return func(p string) { log.Info("waiting", "stage", stage, "for", p) }
	}
	if err := f.startServers(ctx, r, master, p.masters, t, par, software, dep, log); err != nil {
		return infra.Host{}, err
	}
	if _, err := api.waitReady(ctx, p.masters, nil, p.rf, false, f.cfg.readyTimeout, f.cfg.pollInterval, progress("leader")); err != nil {
		return infra.Host{}, f.diagnose(ctx, r, p.db, err)
	}
	if err := f.startServers(ctx, r, tserver, p.db, t, par, software, dep, log); err != nil {
		return infra.Host{}, err
	}
	obs, err := api.waitReady(ctx, p.masters, p.db, p.rf, true, f.cfg.readyTimeout, f.cfg.pollInterval, progress("cluster"))
	if err != nil {
		return infra.Host{}, f.diagnose(ctx, r, p.db, err)
	}
	dep.Settings["ready.leader"] = obs.leaders[0].PrivateIP
	dep.Settings["ready.seen"] = obs.summary()
	if obs.version != "" {
		dep.Settings["version.api"] = obs.version
	}
	return obs.leaders[0], nil
}

// startServers starts srv on every host of on at once, each from its
// host's software directory, and records every start, even when one
// failed, so that the deployment says what runs.
func (f *Flavor) startServers(ctx context.Context, r provision.Runner, srv server, on []infra.Host, t topology, par provision.ParallelOptions, software map[string]string, dep *provision.Deployment, log *slog.Logger) error {
	res, err := provision.Parallel(ctx, on, par, func(ctx context.Context, h infra.Host) (records, error) {
		return f.startServer(ctx, r, h, srv, software[h.Name], serverFlags(srv, h, t))
	})
	for i, h := range on {
		recordStart(dep, h, srv, res[i], serverFlags(srv, h, t), log)
	}
	if err != nil {
		return fmt.Errorf("yugabyte: starting %s: %w", srv, err)
	}
	return nil
}

// startServer starts one server on one host.
func (f *Flavor) startServer(ctx context.Context, r provision.Runner, h infra.Host, srv server, software string, fl []serverFlag) (records, error) {
	l := layoutOf(h)
	script, err := renderStart(startData{Host: h.Name, User: h.ServiceUser, Software: software, Flags: flagStrings(fl), Limits: ulimits, proc: procOf(l, srv), layout: l})
	if err != nil {
		return nil, err
	}
	return runScript(ctx, r, h, "yugabyte-start-"+string(srv), script)
}

// recordStart puts one started server's flags, pid and limits into the
// deployment.
func recordStart(dep *provision.Deployment, h infra.Host, srv server, recs records, fl []serverFlag, log *slog.Logger) {
	set := dep.Settings
	key := string(srv) + ".%s@" + h.Name
	set[fmt.Sprintf(key, "flags")] = shellquote.Join(flagStrings(fl))
	if pid, ok := recs.Last("pid"); ok {
		log.Info("started", "stage", "start", "host", h.Name, "server", srv, "pid", pid)
	}
	if lines := recs.All("limits"); len(lines) > 0 {
		sum, off := summarizeLimits(lines)
		set[fmt.Sprintf(key, "limits")] = sum
		if len(off) > 0 {
			set[fmt.Sprintf(key, "limits_off_spec")] = strings.Join(off, " ")
			log.Warn("limits differ from specs/yugabyte-deploy.md §2.2", "host", h.Name, "server", srv, "items", strings.Join(off, " "))
		}
	} else if v, ok := recs.Last("limits_unavailable"); ok {
		set[fmt.Sprintf(key, "limits")] = "unavailable: " + v
	}
	if failed := recs.All("ulimit_failed"); len(failed) > 0 {
		set[fmt.Sprintf(key, "ulimit_failed")] = strings.Join(failed, " ")
	}
}

// diagnose adds to a readiness failure what the hosts say of their
// servers (running or exited, with the end of their output). It is best
// effort and bounded.
func (f *Flavor) diagnose(ctx context.Context, r provision.Runner, hosts []infra.Host, err error) error {
	var re *ReadyError
	if !errors.As(err, &re) {
		return err
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	res, _ := provision.Parallel(ctx, hosts, provision.ParallelOptions{}, func(ctx context.Context, h infra.Host) (string, error) {
		l := layoutOf(h)
		script, err := renderStatus(stopData{Host: h.Name, Procs: []proc{procOf(l, master), procOf(l, tserver)}, layout: l})
		if err != nil {
			return "", err
		}
		recs, err := runScript(ctx, r, h, "yugabyte-status", script)
		if err != nil {
			return h.Name + ": status unknown (" + err.Error() + ")", nil
		}
		parts := recs.All("status")
		for _, srv := range []server{master, tserver} {
			if tail := recs.All("tail_" + string(srv)); len(tail) > 0 {
				parts = append(parts, string(srv)+" output ends: "+strings.Join(tail, " | "))
			}
		}
		return h.Name + ": " + strings.Join(parts, ", "), nil
	})
	re.Hosts = strings.Join(res, "; ")
	return re
}
