package cassandra

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"time"

	"github.com/ybbench/ybbench/infra"
	"github.com/ybbench/ybbench/provision"
)

// startNodes starts the seed, then the other nodes one by one, each once
// those before it have joined, so that a failure names the node that did
// not join. It returns the last observation of the whole cluster and each
// node's cassandra.yaml as key → value (by host name), and records in set
// how each start went.
func (f *Flavor) startNodes(ctx context.Context, r provision.Runner, p plan, hosts []hostInstall, set map[string]string, log *slog.Logger) (observation, map[string]map[string]string, error) {
	var obs observation
	yamls := map[string]map[string]string{}
	for i := range p.db {
		var err error
		if obs, err = f.startNode(ctx, r, p, i, hosts[i].java, yamls, set, log); err != nil {
			return obs, nil, err
		}
	}
	return obs, yamls, nil
}

// startNode writes the cassandra.yaml of the i-th db host, starts its node
// (a node already running with the same configuration is kept) and waits
// until it has joined those started before it.
func (f *Flavor) startNode(ctx context.Context, r provision.Runner, p plan, i int, java string, yamls map[string]map[string]string, set map[string]string, log *slog.Logger) (observation, error) {
	h, seed := p.db[i], p.db[0]
	l := layoutOf(h)
	yd := nodeYAML(h, p.clusterName, p.tokens[i], seed.PrivateIP, p.noAuth, p.set.yaml)
	y, err := renderYAML(yd)
	if err != nil {
		return observation{}, err
	}
	if yamls[h.Name], err = flattenYAML(y); err != nil {
		return observation{}, err
	}
	cmd := command(java, l, p.src, p.set.heap, f.cfg.ringDelay)
	script, err := renderStart(startData{Host: h.Name, User: h.ServiceUser, Address: h.PrivateIP, NativePort: NativePort,
		StoragePort: StoragePort, Grace: f.graceSeconds(), YAML: y, Command: cmd, layout: l})
	if err != nil {
		return observation{}, err
	}
	t0 := time.Now()
	recs, err := runScript(ctx, r, h, "cassandra-start", script)
	if err != nil {
		return observation{}, err
	}
	what, _ := recs.Last("start")
	if v, ok := recs.Last("restart"); ok {
		what = "restarted: " + v
	}
	pid, _ := recs.Last("pid")
	set["start@"+h.Name] = what
	log.Info("start", "stage", "start", "host", h.Name, "result", what, "pid", pid, "token", p.tokens[i])
	obs, err := f.waitJoined(ctx, r, p.db[:i+1], p.db, log)
	if err != nil {
		return obs, err
	}
	// A node keeps the tokens it first started with: data left by a
	// cluster of another size would leave the ring uneven.
	if got := obs.states[i].Tokens; obs.states[i].Tokens != nil && (len(got) != 1 || got[0] != p.tokens[i]) {
		return obs, fmt.Errorf("cassandra: %s owns tokens %v, not %s: its data is from an earlier cluster of another layout; Wipe it first", h.Name, got, p.tokens[i])
	}
	took := time.Since(t0).Round(100 * time.Millisecond)
	set["join_seconds@"+h.Name] = strconv.FormatFloat(took.Seconds(), 'f', 1, 64)
	log.Info("joined", "stage", "start", "host", h.Name, "elapsed", took, "nodes", i+1)
	if i == 0 {
		set["cmdline@"+h.Name] = strings.Join(cmd, " ")
	}
	return obs, nil
}

// waitJoined polls the started nodes until they form one cluster, at most
// the ready timeout; the last started node's process is checked every few
// polls, so a node that died fails the wait at once.
func (f *Flavor) waitJoined(ctx context.Context, r provision.Runner, started, all []infra.Host, log *slog.Logger) (observation, error) {
	node := started[len(started)-1]
	t0 := time.Now()
	wctx, cancel := context.WithTimeout(ctx, f.cfg.readyTimeout)
	defer cancel()
	var last observation
	var problems []string
	for poll := 1; ; poll++ {
		last = probeAll(wctx, f.cfg.probe, started)
		if problems = last.problems(all); len(problems) == 0 {
			return last, nil
		}
		if poll%5 == 0 {
			log.Info("waiting", "stage", "join", "host", node.Name, "for", problems[0])
			if st, tail := f.status(ctx, r, node); strings.HasPrefix(st, "exited") {
				return last, &ReadyError{Waited: time.Since(t0), Node: node.Name, Problems: append(problems, node.Name+"'s node "+st), Seen: last.summary(), Hosts: node.Name + ": " + tail}
			}
		}
		select {
		case <-ctx.Done():
			return last, ctx.Err()
		case <-wctx.Done():
			return last, f.diagnose(ctx, r, started, &ReadyError{Waited: time.Since(t0), Node: node.Name, Problems: problems, Seen: last.summary()})
		case <-time.After(f.cfg.pollInterval):
		}
	}
}

// status says whether a host's node runs, and the end of its output.
func (f *Flavor) status(ctx context.Context, r provision.Runner, h infra.Host) (string, string) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	script, err := renderStatus(stopData{Host: h.Name, layout: layoutOf(h)})
	if err != nil {
		return "unknown", err.Error()
	}
	recs, err := runScript(ctx, r, h, "cassandra-status", script)
	if err != nil {
		return "unknown", shortErr(err)
	}
	st, _ := recs.Last("status")
	tail := append(recs.All("out"), recs.All("error")...)
	return st, st + "; output ends: " + strings.Join(tail, " | ")
}

// diagnose adds to a readiness failure what the hosts say of their nodes.
func (f *Flavor) diagnose(ctx context.Context, r provision.Runner, hosts []infra.Host, err error) error {
	var re *ReadyError
	if !errors.As(err, &re) {
		return err
	}
	var parts []string
	for _, h := range hosts {
		_, tail := f.status(ctx, r, h)
		parts = append(parts, h.Name+": "+tail)
	}
	re.Hosts = strings.Join(parts, "; ")
	return re
}
