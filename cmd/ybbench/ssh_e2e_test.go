//go:build e2e

package main

import (
	"context"
	"path/filepath"
	"time"

	"github.com/ybbench/ybbench/infra"
	"github.com/ybbench/ybbench/provision/ssh"
)

// runSSH runs a command on a host of a local cluster with the run's key.
func runSSH(c *infra.Cluster, h infra.Host, script string) (string, error) {
	dir := c.Meta["run_dir"]
	r, err := ssh.New(ssh.WithKnownHosts(filepath.Join(dir, "ssh", "known_hosts")))
	if err != nil {
		return "", err
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := r.Run(ctx, h, script)
	if err != nil {
		return "", err
	}
	return string(res.Stdout), res.Err()
}
