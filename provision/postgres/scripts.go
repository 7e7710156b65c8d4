package postgres

import (
	"context"
	"embed"
	"fmt"
	"maps"
	"strings"
	"text/template"

	"github.com/ybbench/ybbench/infra"
	"github.com/ybbench/ybbench/provision"
	"github.com/ybbench/ybbench/provision/scripts"
)

//go:embed scripts/*.tmpl
var templates embed.FS

// node is the data of one host's scripts.
type node struct {
	Host, User, Bin, Primary string
	// Parent is the directory the run's own directory Own is made in;
	// Dir (Own/postgres) holds data, run, log and pgpass.
	Parent, Own, Dir string
	Sock             string // Unix socket directory (Own/pgs): short, as socket paths are limited to 107 bytes
	Run, Version     string // the run owning Own, and ybbench's version (its marker)
	Quorum           string // synchronous_standby_names, e.g. ANY 1 ("db-2", "db-3")
	Port             int
	Shared           bool
	DBUser, Database string
	Conf             []string
	HBA              []string // pg_hba.conf lines
}

// newNode is the data common to a host's scripts.
func newNode(h infra.Host, run, version string) node {
	return node{Host: h.Name, User: h.ServiceUser, Parent: parent(h), Own: provision.OwnDir(parent(h)), Dir: dir(h), Sock: sockDir(h),
		Run: run, Version: version, Shared: h.Shared}
}

// render renders one of the flavor's scripts; the shared own library
// (own_claim, own_check, own_release) is defined for every one of them.
func render(name string, n node) (string, error) {
	text, err := templates.ReadFile("scripts/" + name + ".sh.tmpl")
	if err != nil {
		return "", err
	}
	funcs := template.FuncMap{
		"sqllit": func(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" },
	}
	maps.Copy(funcs, provision.OwnFuncs)
	return provision.RenderWith(name, scripts.Own+string(text), n, funcs)
}

// runScript runs one of the flavor's scripts; stdin, when not empty, is
// the script's standard input (how secrets reach it: never its
// environment, which every process it starts would inherit).
func runScript(ctx context.Context, r provision.Runner, h infra.Host, name string, n node, stdin string) error {
	script, err := render(name, n)
	if err != nil {
		return err
	}
	opts := []provision.RunOption{provision.Step("postgres-" + name)}
	if stdin != "" {
		opts = append(opts, provision.Stdin(strings.NewReader(stdin)))
	}
	res, err := r.Run(ctx, h, script, opts...)
	if err != nil {
		return err
	}
	if err := provision.OwnError(h, res); err != nil {
		return fmt.Errorf("postgres %s on %s: %w", name, h.Name, err)
	}
	return nil
}
