package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ybbench/ybbench/infra"
	"github.com/ybbench/ybbench/internal/exitcode"
	"github.com/ybbench/ybbench/pipeline"
	"github.com/ybbench/ybbench/pipeline/parts"
)

// cmdJanitor is an account of the janitor command's tests: List selects
// what a janitor must (one run's, else the expired), Delete removes all
// but the id it keeps; every call is recorded.
type cmdJanitor struct {
	keep string

	mu      sync.Mutex
	account []infra.Resource
	made    []parts.JanitorOptions
	deleted []string
}

func (j *cmdJanitor) List(_ context.Context, f infra.JanitorFilter) ([]infra.Resource, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	var out []infra.Resource
	for _, r := range j.account {
		if f.RunID == r.RunID || f.RunID == "" && r.Expires.Before(f.Now) {
			out = append(out, r)
		}
	}
	return out, nil
}

func (j *cmdJanitor) Delete(_ context.Context, rs []infra.Resource) ([]infra.Resource, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	var left []infra.Resource
	for _, r := range rs {
		if r.ID == j.keep {
			left = append(left, r)
			continue
		}
		j.deleted = append(j.deleted, r.ID)
	}
	if len(left) > 0 {
		return left, errors.New("DependencyViolation")
	}
	return nil, nil
}

// janitorRoot runs `ybbench janitor args…` in this process with j as the
// clouds' janitor, and returns the exit code, stdout and the error.
func janitorRoot(t *testing.T, j *cmdJanitor, args ...string) (int, string, error) {
	t.Helper()
	reg := parts.Builtin()
	for i := range reg.Providers {
		if reg.Providers[i].Cloud != nil {
			reg.Providers[i].Janitor = func(_ context.Context, o parts.JanitorOptions) (infra.Janitor, error) {
				j.mu.Lock()
				defer j.mu.Unlock()
				j.made = append(j.made, o)
				return j, nil
			}
		}
	}
	var stdout, stderr bytes.Buffer
	root := newRootWith(&stdout, &stderr, reg)
	root.SetArgs(append([]string{"janitor"}, args...))
	err := root.Execute()
	return exitcode.Of(err), stdout.String(), err
}

// twoRuns: one run's resources expired an hour ago, another's expire in
// a day.
func twoRuns() []infra.Resource {
	now := time.Now().UTC()
	return []infra.Resource{
		{Type: "instance", ID: "i-0old", Zone: "us-east-1a", RunID: "old-run", Expires: now.Add(-time.Hour)},
		{Type: "vpc", ID: "vpc-0old", Region: "us-east-1", RunID: "old-run", Expires: now.Add(-time.Hour)},
		{Type: "instance", ID: "i-0new", Zone: "us-east-1a", RunID: "new-run", Expires: now.Add(24 * time.Hour)},
	}
}

// ybbench janitor lists what is past its expiry and deletes nothing; with
// --yes it deletes exactly that; what cannot be deleted is listed and the
// exit code is 6; -o json is the report for scripts.
func TestJanitorCommand(t *testing.T) {
	j := &cmdJanitor{account: twoRuns()}
	code, out, err := janitorRoot(t, j, "--provider", "aws")
	if code != 0 || len(j.deleted) != 0 || len(j.made) != 1 || j.made[0].Region != "us-east-1" {
		t.Fatalf("dry run: exit %d (%v), deleted %v, made with %+v", code, err, j.deleted, j.made)
	}
	for _, w := range []string{"aws region us-east-1 (the default; --region for another): 2 resource(s) of ybbench past their expiry",
		"TYPE", "instance  i-0old", "vpc       vpc-0old", "nothing was deleted (a dry run); to delete these: ybbench janitor --provider aws --region us-east-1 --yes"} {
		if !strings.Contains(out, w) {
			t.Errorf("dry run lacks %q:\n%s", w, out)
		}
	}
	if strings.Contains(out, "i-0new") {
		t.Errorf("the dry run lists a resource not yet expired:\n%s", out)
	}

	code, out, err = janitorRoot(t, j, "--provider", "aws", "--region", "us-east-1", "--yes")
	if code != 0 || strings.Join(j.deleted, " ") != "i-0old vpc-0old" || !strings.Contains(out, "deleted 2 resource(s); none remains") {
		t.Errorf("--yes: exit %d (%v), deleted %v:\n%s", code, err, j.deleted, out)
	}

	j = &cmdJanitor{account: twoRuns(), keep: "i-0new"}
	code, out, err = janitorRoot(t, j, "--provider", "gcp", "--project", "p1", "--run", "new-run", "--yes", "-o", "json")
	var rep pipeline.JanitorReport
	if jerr := json.Unmarshal([]byte(out), &rep); jerr != nil {
		t.Fatalf("-o json: %v:\n%s", jerr, out)
	}
	if code != exitcode.Teardown || !strings.Contains(err.Error(), "1 of 1 resource(s) remain") || rep.Schema != pipeline.JanitorSchema ||
		rep.Project != "p1" || rep.RunID != "new-run" || !rep.Delete || len(rep.Found) != 1 || len(rep.Remaining) != 1 || rep.Remaining[0].ID != "i-0new" ||
		rep.Command != "ybbench janitor --provider gcp --project p1 --run new-run --yes" || len(j.deleted) != 0 {
		t.Errorf("remaining: exit %d (%v), report %+v, deleted %v", code, err, rep, j.deleted)
	}
}

// Bad flags are refused (exit 2) before a janitor is made, on the built
// binary: no provider, one without a janitor, gcp without a project, aws
// with one, an argument.
func TestCLIJanitorRefusals(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"janitor"}, "--provider: required"},
		{[]string{"janitor", "--provider", "local"}, "the local provider makes nothing in a cloud, so it has no janitor"},
		{[]string{"janitor", "--provider", "gcp", "--region", "us-central1"}, "--project: required with --provider gcp"},
		{[]string{"janitor", "--provider", "aws", "--project", "p1"}, "--project: the aws provider has no projects"},
		{[]string{"janitor", "--provider", "aws", "extra"}, "takes no argument"},
		{[]string{"janitor", "--provider", "aws", "-o", "yaml"}, `"yaml": want text or json`},
	} {
		r := cli(t, nil, c.args...)
		if r.code != 2 || !strings.Contains(r.stderr, c.want) || r.stdout != "" {
			t.Errorf("ybbench %q: exit %d, stdout %q, stderr %q; want exit 2 and %q", c.args, r.code, r.stdout, r.stderr, c.want)
		}
	}
}
