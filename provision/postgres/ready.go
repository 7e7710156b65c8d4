package postgres

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/ybbench/ybbench/infra"
	"github.com/ybbench/ybbench/provision"
)

// waitStreaming polls the primary until every replica streams (a real
// readiness check, bounded).
func (f *Flavor) waitStreaming(ctx context.Context, r provision.Runner, primary infra.Host, n node, replicas []string) error {
	timeout := f.ReadyTimeout
	if timeout == 0 {
		timeout = 2 * time.Minute
	}
	deadline := time.Now().Add(timeout)
	script, err := render("status", n)
	if err != nil {
		return err
	}
	last := ""
	for {
		res, err := r.Run(ctx, primary, script, provision.Step("postgres-status"))
		if err != nil {
			return err
		}
		if res.ExitCode == 0 {
			last = strings.TrimSpace(string(res.Stdout))
			streaming := 0
			for _, l := range strings.Split(last, "\n") {
				if f := strings.Fields(l); len(f) == 3 && f[1] == "streaming" && (f[2] == "quorum" || f[2] == "sync") {
					streaming++
				}
			}
			if streaming == len(replicas) {
				return nil
			}
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("postgres: replicas not streaming after %v (primary reports: %q)", timeout, last)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(500 * time.Millisecond):
		}
	}
}

// settingsOf reads the server's version and every setting not at its
// default, from the running server itself: the deployment records what
// the server took, not only what was asked of it.
func settingsOf(ctx context.Context, r provision.Runner, h infra.Host, n node) (map[string]string, error) {
	script, err := render("settings", n)
	if err != nil {
		return nil, err
	}
	res, err := r.Run(ctx, h, script, provision.Step("postgres-settings"))
	if err != nil {
		return nil, err
	}
	if err := res.Err(); err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, l := range strings.Split(strings.TrimSpace(string(res.Stdout)), "\n") {
		if k, v, ok := strings.Cut(l, "="); ok {
			out[k] = v
		}
	}
	return out, nil
}
