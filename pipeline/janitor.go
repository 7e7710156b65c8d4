package pipeline

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/ybbench/ybbench/infra"
	"github.com/ybbench/ybbench/internal/exitcode"
	"github.com/ybbench/ybbench/pipeline/parts"
)

// The janitor: the last layer of a cloud run's teardown. It finds what
// ybbench made in a cloud account by the resources' own marks (no run
// directory needed) and lists it; it deletes only when asked (--yes).

// JanitorSchema versions the JSON `ybbench janitor -o json` prints.
const JanitorSchema = "ybbench-janitor/1"

// JanitorRequest is what `ybbench janitor` was asked: which provider and
// scope (an aws region; a gcp project, optionally one region), which
// resources (one run's, else every one past its expiry), and whether to
// delete them.
type JanitorRequest struct {
	Provider, Region, Project string
	RunID                     string
	Yes                       bool
}

// Janitor is a request checked against the registry: the provider's
// janitor constructor and the scope it is made for.
type Janitor struct {
	Request JanitorRequest
	Options parts.JanitorOptions
	// RegionDefault: the region is the provider's default, not asked for.
	RegionDefault bool
	make          func(context.Context, parts.JanitorOptions) (infra.Janitor, error)
}

// NewJanitor checks a request against reg (nil: the built-in registry):
// the provider has a janitor, and the scope suits it (a project where the
// provider's resources live in one, else a region, the provider's default
// when none is given). Every problem is reported at once (exit 2).
func NewJanitor(reg *parts.Registry, req JanitorRequest) (*Janitor, error) {
	if reg == nil {
		reg = builtin
	}
	var errs []error
	bad := func(format string, a ...any) { errs = append(errs, fmt.Errorf(format, a...)) }
	p, known := reg.Provider(req.Provider)
	j := &Janitor{Request: req, Options: parts.JanitorOptions{Region: req.Region, Project: req.Project}}
	switch {
	case req.Provider == "":
		bad("--provider: required (%s)", wordList(cloudNames(reg), "or"))
	case !known:
		bad("--provider: %q is not a provider (%s have janitors)", req.Provider, wordList(cloudNames(reg), "and"))
	case p.Cloud == nil:
		bad("--provider: the %s provider makes nothing in a cloud, so it has no janitor (%s do)", req.Provider, wordList(cloudNames(reg), "and"))
	case p.Janitor == nil:
		bad("--provider: the %s janitor is not available in this version", req.Provider)
	default:
		j.make = p.Janitor
	}
	if known && p.Cloud != nil {
		switch {
		case takesProject(req.Provider) && req.Project == "":
			bad("--project: required with --provider %s: the project to look in (--region narrows it to one region)", req.Provider)
		case !takesProject(req.Provider) && req.Project != "":
			bad("--project: the %s provider has no projects (--region names where to look)", req.Provider)
		case !takesProject(req.Provider) && req.Region == "":
			j.Options.Region, j.RegionDefault = p.Cloud.Region, true
		}
	}
	if len(errs) > 0 {
		return nil, exitcode.Wrap(exitcode.Config, errors.Join(errs...))
	}
	return j, nil
}

// Scope is the part of the account the janitor looks in, as its flags
// say it: "--region us-east-1", "--project p --region us-central1".
func (j *Janitor) Scope() string {
	var out []string
	if j.Options.Project != "" {
		out = append(out, "--project "+j.Options.Project)
	}
	if j.Options.Region != "" {
		out = append(out, "--region "+j.Options.Region)
	}
	return strings.Join(out, " ")
}

// JanitorReport is what a janitor found, and what remains when it was
// told to delete (its JSON is a documented interface:
// docs/json-output.md).
type JanitorReport struct {
	Schema   string `json:"schema"`
	Provider string `json:"provider"`
	Region   string `json:"region,omitempty"`
	Project  string `json:"project,omitempty"`
	// RunID is the run whose resources were asked for; without one, the
	// resources past their expiry at Now were.
	RunID string    `json:"run_id,omitempty"`
	Now   time.Time `json:"now"`
	// Delete: told to delete (--yes). Found is what was listed, in
	// deletion order; Remaining what a deletion left.
	Delete    bool             `json:"delete"`
	Found     []infra.Resource `json:"found"`
	Remaining []infra.Resource `json:"remaining"`
	// Command is the command line that deletes what was found (a dry
	// run's) or retries what remains.
	Command string `json:"command,omitempty"`

	regionDefault bool `json:"-"`
}

// Sweep makes the janitor, lists what it selects and, when the request
// says so, deletes it. The report comes back with the error: a janitor
// that cannot be made or cannot list is an infrastructure failure (exit
// 3, unless it said otherwise: no credentials is bad configuration);
// anything left after a deletion is an incomplete teardown (exit 6).
func (j *Janitor) Sweep(ctx context.Context, now time.Time) (*JanitorReport, error) {
	req := j.Request
	rep := &JanitorReport{Schema: JanitorSchema, Provider: req.Provider, Region: j.Options.Region, Project: j.Options.Project,
		RunID: req.RunID, Now: now.UTC(), Delete: req.Yes, Found: []infra.Resource{}, Remaining: []infra.Resource{},
		regionDefault: j.RegionDefault}
	jn, err := j.make(ctx, j.Options)
	if err != nil {
		return rep, exitcode.Wrap(exitcode.Infra, fmt.Errorf("%s janitor (%s): %w", req.Provider, j.Scope(), err))
	}
	found, err := jn.List(ctx, infra.JanitorFilter{RunID: req.RunID, Now: rep.Now})
	if err != nil {
		return rep, exitcode.Wrap(exitcode.Infra, fmt.Errorf("%s janitor (%s): listing: %w", req.Provider, j.Scope(), err))
	}
	rep.Found = append(rep.Found, found...)
	cmd := "ybbench janitor --provider " + req.Provider + " " + j.Scope()
	if req.RunID != "" {
		cmd += " --run " + req.RunID
	}
	cmd += " --yes"
	if !req.Yes {
		if len(found) > 0 {
			rep.Command = cmd
		}
		return rep, nil
	}
	if len(found) == 0 {
		return rep, nil
	}
	remaining, err := jn.Delete(ctx, found)
	rep.Remaining = append(rep.Remaining, remaining...)
	if len(remaining) == 0 && err == nil {
		return rep, nil
	}
	rep.Command = cmd
	if len(remaining) > 0 {
		err = errors.Join(fmt.Errorf("%d of %d resource(s) remain; run %s again to retry", len(remaining), len(found), cmd), err)
	} else {
		err = fmt.Errorf("the deletion reported a failure though nothing it found remains; list again to see: %w", err)
	}
	return rep, exitcode.Wrap(exitcode.Teardown, err)
}

// WriteJanitorText prints a janitor's report for people: the resources
// as a table (type, id, run, expiry, where), what was done with them, and
// the command that deletes them (a dry run) or retries (what remains).
func WriteJanitorText(w io.Writer, rep *JanitorReport) error {
	var b strings.Builder
	where := rep.Provider
	if rep.Project != "" {
		where += " project " + rep.Project
	}
	if rep.Region != "" {
		where += " region " + rep.Region
		if rep.regionDefault {
			where += " (the default; --region for another)"
		}
	}
	which := fmt.Sprintf("past their expiry at %s", rep.Now.Format(time.RFC3339))
	if rep.RunID != "" {
		which = "of run " + rep.RunID
	}
	fmt.Fprintf(&b, "%s: %d resource(s) of ybbench %s\n", where, len(rep.Found), which)
	writeResources(&b, rep.Found)
	switch {
	case !rep.Delete && len(rep.Found) > 0:
		fmt.Fprintf(&b, "nothing was deleted (a dry run); to delete these: %s\n", rep.Command)
	case rep.Delete && len(rep.Found) > 0 && len(rep.Remaining) == 0:
		fmt.Fprintf(&b, "deleted %d resource(s); none remains\n", len(rep.Found))
	case rep.Delete && len(rep.Remaining) > 0:
		fmt.Fprintf(&b, "deleted %d of %d resource(s); these remain:\n", len(rep.Found)-len(rep.Remaining), len(rep.Found))
		writeResources(&b, rep.Remaining)
		fmt.Fprintf(&b, "to retry: %s\n", rep.Command)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// writeResources writes resources as a table, or nothing when there are
// none.
func writeResources(b *strings.Builder, rs []infra.Resource) {
	if len(rs) == 0 {
		return
	}
	tw := tabwriter.NewWriter(b, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "  TYPE\tID\tRUN\tEXPIRES\tWHERE")
	for _, r := range rs {
		where := r.Zone
		if where == "" {
			where = r.Region
		}
		if where == "" {
			where = "-"
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\n", r.Type, r.ID, r.RunID, r.Expires.UTC().Format(time.RFC3339), where)
	}
	tw.Flush()
}
