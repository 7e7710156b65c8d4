package cassandra

import (
	"context"
	"fmt"
	"log/slog"
	"path"
	"time"

	"github.com/ybbench/ybbench/infra"
	"github.com/ybbench/ybbench/provision"
)

// hostInstall is what preparing and installing one host found.
type hostInstall struct {
	java, javaVersion string
	transfer          string // uploaded, or skipped
	installed         string // openjdk-17-jre-headless when the flavor installed it
	userCreated       bool
	// changes are what the host's scripts changed outside the run's own
	// directories (Deployment.HostChanges).
	changes []string
}

// installHost prepares one host and installs the artifacts there.
func (f *Flavor) installHost(ctx context.Context, r provision.Runner, h infra.Host, p plan, tb tarball, log *slog.Logger) (hostInstall, error) {
	var out hostInstall
	l := layoutOf(h)
	script, err := renderPrepare(prepareData{Host: h.Name, User: h.ServiceUser, Shared: h.Shared, Java: p.set.java,
		RunID: p.runID, Version: p.version, layout: l})
	if err != nil {
		return out, err
	}
	recs, err := runScript(ctx, r, h, "cassandra-prepare", script)
	if err != nil {
		return out, err
	}
	out.java, _ = recs.Last("java")
	out.javaVersion, _ = recs.Last("java_version")
	out.installed, _ = recs.Last("java_installed")
	out.changes = recs.All("host_change")
	if out.java == "" {
		return out, fmt.Errorf("cassandra-prepare on %s: the script did not say which java to use", h.Name)
	}
	if u, ok := recs.Last("user_created"); ok {
		log.Info("service user created", "stage", "prepare", "user", u)
	}
	log.Info("java", "stage", "prepare", "java", out.java, "version", out.javaVersion, "installed", out.installed)
	remote := path.Join(l.Dist, tb.Name)
	if have, _ := recs.Last("have_sha256"); have == tb.SHA256 {
		out.transfer = "skipped (the host has it)"
		log.Info("upload skipped: the host has the artifacts", "stage", "upload", "sha256", have)
	} else {
		t0 := time.Now()
		if err := provision.PutFile(ctx, r, h, tb.Path, remote, 0o644); err != nil {
			return out, err
		}
		out.transfer = "uploaded"
		log.Info("uploaded", "stage", "upload", "dst", remote, "bytes", tb.Size, "elapsed", time.Since(t0).Round(time.Millisecond))
	}
	script, err = renderInstall(installData{Host: h.Name, User: h.ServiceUser, Tarball: remote, SHA256: tb.SHA256,
		Jar: p.src.Jar, JavaBin: out.java, layout: l})
	if err != nil {
		return out, err
	}
	recs, err = runScript(ctx, r, h, "cassandra-install", script)
	if err != nil {
		return out, err
	}
	if v, ok := recs.Last("extract"); ok {
		log.Info("extract", "stage", "install", "result", v)
	}
	return out, nil
}
