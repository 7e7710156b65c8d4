package pipeline

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ybbench/ybbench/infra"
	"github.com/ybbench/ybbench/internal/exitcode"
	"github.com/ybbench/ybbench/internal/golden"
	"github.com/ybbench/ybbench/pipeline/parts"
)

// fakeJanitor is an account holding resources of ybbench's: List selects
// as a janitor must (one run's, else those past their expiry), Delete
// removes all but those it is told to keep, and both are recorded.
type fakeJanitor struct {
	keep    string // an id Delete cannot remove
	listErr error

	mu       sync.Mutex
	account  []infra.Resource
	filters  []infra.JanitorFilter
	deletes  [][]infra.Resource
	madeWith []parts.JanitorOptions
}

func (j *fakeJanitor) List(ctx context.Context, f infra.JanitorFilter) ([]infra.Resource, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.filters = append(j.filters, f)
	if j.listErr != nil {
		return nil, j.listErr
	}
	var out []infra.Resource
	for _, r := range j.account {
		if f.RunID == r.RunID || f.RunID == "" && r.Expires.Before(f.Now) {
			out = append(out, r)
		}
	}
	return out, nil
}

func (j *fakeJanitor) Delete(ctx context.Context, rs []infra.Resource) ([]infra.Resource, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.deletes = append(j.deletes, rs)
	var left []infra.Resource
	for _, r := range rs {
		if r.ID == j.keep {
			left = append(left, r)
			continue
		}
		j.account = slices.DeleteFunc(j.account, func(x infra.Resource) bool { return x.ID == r.ID })
	}
	if len(left) > 0 {
		return left, errors.New("DependencyViolation: still in use")
	}
	return nil, nil
}

// janitorRegistry is cloudRegistry with j as every cloud's janitor,
// recording the options it is made with.
func janitorRegistry(j *fakeJanitor) *parts.Registry {
	reg := cloudRegistry(&fakeCloud{})
	for i := range reg.Providers {
		if reg.Providers[i].Cloud != nil {
			reg.Providers[i].Janitor = func(ctx context.Context, o parts.JanitorOptions) (infra.Janitor, error) {
				j.mu.Lock()
				defer j.mu.Unlock()
				j.madeWith = append(j.madeWith, o)
				return j, nil
			}
		}
	}
	return reg
}

// janitorNow is the instant the tests' janitors judge expiry at.
var janitorNow = time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)

// account is two runs' resources: run A's expired, run B's not.
func account() []infra.Resource {
	exp := func(h int) time.Time { return janitorNow.Add(time.Duration(h) * time.Hour) }
	return []infra.Resource{
		{Type: "instance", ID: "i-0a1", Zone: "us-east-1a", RunID: "ycsb-ysql-261201-0600-aaaa0001", Expires: exp(-1)},
		{Type: "security-group", ID: "sg-0a1", Region: "us-east-1", RunID: "ycsb-ysql-261201-0600-aaaa0001", Expires: exp(-1)},
		{Type: "vpc", ID: "vpc-0a1", Region: "us-east-1", RunID: "ycsb-ysql-261201-0600-aaaa0001", Expires: exp(-1)},
		{Type: "instance", ID: "i-0b1", Zone: "us-east-1a", RunID: "kv-ycql-261201-1100-bbbb0002", Expires: exp(5)},
	}
}

// The janitor's flags: a provider with a janitor, a project where the
// provider's resources live in one (gcp), else a region, aws's default
// when none is given; every problem at once (exit 2).
func TestJanitorRequest(t *testing.T) {
	reg := janitorRegistry(&fakeJanitor{})
	// A cloud provider whose janitor is not in this version.
	noJanitor := cloudRegistry(&fakeCloud{})
	for i := range noJanitor.Providers {
		noJanitor.Providers[i].Janitor = nil
	}
	for _, c := range []struct {
		name string
		reg  *parts.Registry
		req  JanitorRequest
		want []string
	}{
		{"no provider", reg, JanitorRequest{}, []string{"--provider: required (aws or gcp)"}},
		{"unknown", reg, JanitorRequest{Provider: "azure"}, []string{`--provider: "azure" is not a provider (aws and gcp have janitors)`}},
		{"local", reg, JanitorRequest{Provider: "local"}, []string{"--provider: the local provider makes nothing in a cloud, so it has no janitor"}},
		{"none in this version", noJanitor, JanitorRequest{Provider: "aws", Region: "us-east-1"}, []string{"--provider: the aws janitor is not available in this version"}},
		{"gcp without project", reg, JanitorRequest{Provider: "gcp", Region: "us-central1"}, []string{"--project: required with --provider gcp"}},
		{"aws with project", reg, JanitorRequest{Provider: "aws", Project: "p"}, []string{"--project: the aws provider has no projects"}},
	} {
		_, err := NewJanitor(c.reg, c.req)
		if exitcode.Of(err) != exitcode.Config {
			t.Errorf("%s: exit %d: %v", c.name, exitcode.Of(err), err)
			continue
		}
		wantProblems(t, c.name, err, c.want)
	}
	for _, c := range []struct {
		req       JanitorRequest
		want      parts.JanitorOptions
		scope     string
		defaulted bool
	}{
		{JanitorRequest{Provider: "aws"}, parts.JanitorOptions{Region: "us-east-1"}, "--region us-east-1", true},
		{JanitorRequest{Provider: "aws", Region: "eu-west-1"}, parts.JanitorOptions{Region: "eu-west-1"}, "--region eu-west-1", false},
		{JanitorRequest{Provider: "gcp", Project: "p1"}, parts.JanitorOptions{Project: "p1"}, "--project p1", false},
		{JanitorRequest{Provider: "gcp", Project: "p1", Region: "us-east1"}, parts.JanitorOptions{Project: "p1", Region: "us-east1"}, "--project p1 --region us-east1", false},
	} {
		j, err := NewJanitor(reg, c.req)
		if err != nil {
			t.Errorf("%+v: %v", c.req, err)
			continue
		}
		if j.Options != c.want || j.Scope() != c.scope || j.RegionDefault != c.defaulted {
			t.Errorf("%+v: options %+v, scope %q, default %v", c.req, j.Options, j.Scope(), j.RegionDefault)
		}
	}
}

// Without --yes the janitor lists what it selects and deletes nothing;
// with it, it deletes exactly that and says what remains (exit 6 when
// anything does); failing to list is an infrastructure failure (exit 3).
func TestJanitorSweep(t *testing.T) {
	ctx := context.Background()
	fj := &fakeJanitor{account: account()}
	j, err := NewJanitor(janitorRegistry(fj), JanitorRequest{Provider: "aws"})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := j.Sweep(ctx, janitorNow)
	if err != nil {
		t.Fatal(err)
	}
	if ids(rep.Found) != "i-0a1 sg-0a1 vpc-0a1" || len(fj.deletes) != 0 || len(fj.account) != 4 || rep.Delete ||
		rep.Command != "ybbench janitor --provider aws --region us-east-1 --yes" {
		t.Errorf("dry run: found %s, %d deletes, %d left in the account, command %q", ids(rep.Found), len(fj.deletes), len(fj.account), rep.Command)
	}
	if fj.filters[0] != (infra.JanitorFilter{Now: janitorNow}) || fj.madeWith[0] != (parts.JanitorOptions{Region: "us-east-1"}) {
		t.Errorf("listed with %+v, made with %+v", fj.filters[0], fj.madeWith[0])
	}
	var text strings.Builder
	WriteJanitorText(&text, rep)
	golden.Check(t, "janitor-dry-run.txt", []byte(text.String()))

	j.Request.Yes = true
	rep, err = j.Sweep(ctx, janitorNow)
	if err != nil || len(fj.deletes) != 1 || ids(fj.deletes[0]) != "i-0a1 sg-0a1 vpc-0a1" || ids(fj.account) != "i-0b1" || len(rep.Remaining) != 0 || rep.Command != "" {
		t.Errorf("--yes: %v; deletes %v, account %s, remaining %s", err, fj.deletes, ids(fj.account), ids(rep.Remaining))
	}

	// One run's, expired or not; one resource that will not go.
	fj = &fakeJanitor{account: account(), keep: "i-0b1"}
	j, _ = NewJanitor(janitorRegistry(fj), JanitorRequest{Provider: "gcp", Project: "p1", RunID: "kv-ycql-261201-1100-bbbb0002", Yes: true})
	rep, err = j.Sweep(ctx, janitorNow)
	if exitcode.Of(err) != exitcode.Teardown || !strings.Contains(err.Error(), "1 of 1 resource(s) remain") || !strings.Contains(err.Error(), "DependencyViolation") ||
		ids(rep.Remaining) != "i-0b1" || fj.filters[0].RunID != "kv-ycql-261201-1100-bbbb0002" {
		t.Errorf("remaining: exit %d: %v; remaining %s, filter %+v", exitcode.Of(err), err, ids(rep.Remaining), fj.filters[0])
	}
	text.Reset()
	WriteJanitorText(&text, rep)
	golden.Check(t, "janitor-remaining.txt", []byte(text.String()))

	fj = &fakeJanitor{listErr: errors.New("UnauthorizedOperation")}
	j, _ = NewJanitor(janitorRegistry(fj), JanitorRequest{Provider: "aws", Yes: true})
	if _, err := j.Sweep(ctx, janitorNow); exitcode.Of(err) != exitcode.Infra || !strings.Contains(err.Error(), "UnauthorizedOperation") || len(fj.deletes) != 0 {
		t.Errorf("list fails: exit %d: %v; %d deletes", exitcode.Of(err), err, len(fj.deletes))
	}
}

// ids lists resources' ids.
func ids(rs []infra.Resource) string {
	var out []string
	for _, r := range rs {
		out = append(out, r.ID)
	}
	return strings.Join(out, " ")
}
