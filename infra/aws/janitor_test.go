package aws

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ybbench/ybbench/infra"
	"github.com/ybbench/ybbench/infra/cloudtag"
	"github.com/ybbench/ybbench/internal/exitcode"
)

const janTestRegion = "us-west-2"

// janTestNow is the janitor's "now" in these tests.
var janTestNow = time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)

// janRunTags are a run's tags, as the modules' default_tags set them.
func janRunTags(t *testing.T, run string, expires time.Time) map[string]string {
	t.Helper()
	tags, err := cloudtag.AWSTags(cloudtag.Meta{RunID: run, Owner: "tester", Created: expires.Add(-2 * time.Hour), Expires: expires})
	if err != nil {
		t.Fatal(err)
	}
	return tags
}

// janAddRun puts a whole run in the fake, its ids ending in p: a VPC with its
// main route table and default security group (tagged too, so that the
// janitor must leave them to the VPC on its own), a subnet, a gateway, a
// route table, a security group, a key pair, a placement group, three
// instances using them, a volume attached to the first (deleted with it)
// and a spare one. It returns what the janitor must list of it, in the
// deletion order spelled out here.
func janAddRun(t *testing.T, f *janFakeEC2, p, run string, expires time.Time) []infra.Resource {
	t.Helper()
	tags := janRunTags(t, run, expires)
	zone := janTestRegion + "a"
	vpc, subnet, sg, pg := "vpc-"+p, "subnet-"+p, "sg-"+p, "pg-"+p
	f.add(&janFakeRes{typ: janVPC, id: vpc, tags: tags})
	f.add(&janFakeRes{typ: janRouteTable, id: "rtb-main-" + p, vpc: vpc, main: true, tags: tags})
	f.add(&janFakeRes{typ: janSecurityGroup, id: "sg-default-" + p, name: "default", vpc: vpc, isDefault: true, tags: tags})
	f.add(&janFakeRes{typ: janSubnet, id: subnet, vpc: vpc, zone: zone, tags: tags})
	f.add(&janFakeRes{typ: janInternetGateway, id: "igw-" + p, attachedVPC: vpc, tags: tags})
	f.add(&janFakeRes{typ: janRouteTable, id: "rtb-" + p, vpc: vpc, assocs: map[string]string{"rtbassoc-" + p: subnet}, tags: tags})
	f.add(&janFakeRes{typ: janSecurityGroup, id: sg, name: "ybbench-" + p, vpc: vpc, tags: tags})
	f.add(&janFakeRes{typ: janKeyPair, id: "key-" + p, tags: tags})
	f.add(&janFakeRes{typ: janPlacementGroup, id: pg, tags: tags})
	for i := 1; i <= 3; i++ {
		f.add(&janFakeRes{typ: janInstance, id: fmt.Sprintf("i-%s-%d", p, i), vpc: vpc, subnet: subnet, group: sg, placement: pg, zone: zone, tags: tags})
	}
	f.add(&janFakeRes{typ: janVolume, id: "vol-data-" + p, attachedTo: "i-" + p + "-1", zone: zone, tags: tags})
	f.add(&janFakeRes{typ: janVolume, id: "vol-spare-" + p, zone: zone, tags: tags})

	r := func(typ, id, zone string) infra.Resource {
		return infra.Resource{Type: typ, ID: id, Region: janTestRegion, Zone: zone, RunID: run, Expires: expires}
	}
	return []infra.Resource{
		r("instance", "i-"+p+"-1", zone), r("instance", "i-"+p+"-2", zone), r("instance", "i-"+p+"-3", zone),
		r("volume", "vol-data-"+p, zone), r("volume", "vol-spare-"+p, zone),
		r("key-pair", "key-"+p, ""), r("placement-group", pg, ""), r("security-group", sg, ""),
		r("route-table", "rtb-"+p, ""), r("internet-gateway", "igw-"+p, ""), r("subnet", subnet, zone), r("vpc", vpc, ""),
	}
}

// janAccount is a fake holding an expired run ("old"), a live one ("new"),
// expired resources that are not ybbench's (no managed tag, managed=false)
// and one of ybbench's whose expiry tag is damaged.
type janAccount struct {
	fake     *janFakeEC2
	old, new []infra.Resource
}

func newJanAccount(t *testing.T) *janAccount {
	t.Helper()
	f := newJanFakeEC2()
	a := &janAccount{fake: f}
	a.old = janAddRun(t, f, "old", "r-old", janTestNow.Add(-time.Hour))
	a.new = janAddRun(t, f, "new", "r-new", janTestNow.Add(2*time.Hour))
	expired := janRunTags(t, "r-other", janTestNow.Add(-time.Hour))
	noMark := maps.Clone(expired)
	delete(noMark, cloudtag.TagManaged)
	notOurs := maps.Clone(expired)
	notOurs[cloudtag.TagManaged] = "false"
	damaged := maps.Clone(expired)
	damaged[cloudtag.TagExpires] = "yesterday"
	f.add(&janFakeRes{typ: janVPC, id: "vpc-nomark", tags: noMark})
	f.add(&janFakeRes{typ: janVPC, id: "vpc-notours", tags: notOurs})
	f.add(&janFakeRes{typ: janInstance, id: "i-notours", vpc: "vpc-notours", zone: janTestRegion + "b", tags: notOurs})
	f.add(&janFakeRes{typ: janKeyPair, id: "key-nomark", tags: noMark})
	f.add(&janFakeRes{typ: janSecurityGroup, id: "sg-damaged", vpc: "vpc-notours", tags: damaged})
	return a
}

// untouched are the fake's resources the janitor must leave.
func (a *janAccount) untouched() []string {
	ids := []string{"vpc-nomark", "vpc-notours", "i-notours", "key-nomark", "sg-damaged", "rtb-main-new", "sg-default-new"}
	for _, r := range a.new {
		ids = append(ids, r.ID)
	}
	return ids
}

// newTestJanitor is a janitor of janTestRegion on the fake, through a
// recorder that also takes its waits, logging to the returned buffer.
func newTestJanitor(t *testing.T, f *janFakeEC2) (*Janitor, *janRecorder, *bytes.Buffer) {
	t.Helper()
	rec := &janRecorder{janitorEC2: f}
	var logs bytes.Buffer
	log := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	j, err := NewJanitor(context.Background(), janTestRegion, withJanitorEC2(rec), withJanitorSleep(rec.sleep), JanitorLogger(log))
	if err != nil {
		t.Fatal(err)
	}
	return j, rec, &logs
}

func janResourceLines(rs []infra.Resource) string {
	var b strings.Builder
	for _, r := range rs {
		fmt.Fprintf(&b, "%s %s zone=%q region=%s\n", r, r.Type, r.Zone, r.Region)
	}
	return b.String()
}

func janSameResources(t *testing.T, what string, got, want []infra.Resource) {
	t.Helper()
	if g, w := janResourceLines(got), janResourceLines(want); g != w {
		t.Errorf("%s:\ngot\n%swant\n%s", what, g, w)
	}
}

// TestJanitorListsExpiredResourcesOfOurs: the dry run lists exactly the
// expired run's resources, in deletion order, without the VPC's own
// defaults, never a resource without ybbench:managed=true nor one whose
// expiry cannot be read (that one is warned about); it holds when the
// endpoint ignores the tag filters too, and changes nothing.
func TestJanitorListsExpiredResourcesOfOurs(t *testing.T) {
	for _, ignore := range []bool{false, true} {
		t.Run(fmt.Sprintf("endpoint ignores filters %v", ignore), func(t *testing.T) {
			a := newJanAccount(t)
			a.fake.ignoreFilters = ignore
			j, rec, logs := newTestJanitor(t, a.fake)
			got, err := j.List(context.Background(), infra.JanitorFilter{Now: janTestNow})
			if err != nil {
				t.Fatal(err)
			}
			janSameResources(t, "listed", got, a.old)
			if calls := rec.log(); len(calls) != 0 {
				t.Errorf("the dry run changed something: %q", calls)
			}
			if !strings.Contains(logs.String(), `level=WARN msg="not listed: its ybbench tags are damaged" region=us-west-2 err="security-group sg-damaged: ybbench:expires: \"yesterday\" is not an RFC 3339 time"`) {
				t.Errorf("no warning about sg-damaged's expiry:\n%s", logs)
			}
		})
	}
}

// TestJanitorListsOneRun: --run lists that run's resources though they
// have not expired, and no other run's.
func TestJanitorListsOneRun(t *testing.T) {
	a := newJanAccount(t)
	j, _, _ := newTestJanitor(t, a.fake)
	got, err := j.List(context.Background(), infra.JanitorFilter{RunID: "r-new", Now: janTestNow})
	if err != nil {
		t.Fatal(err)
	}
	janSameResources(t, "run r-new", got, a.new)
}

// janDeletionOrder is the order of cloud.md §4.3 as API calls.
var janDeletionOrder = []string{
	"TerminateInstances", "DeleteVolume", "DeleteKeyPair", "DeletePlacementGroup", "DeleteSecurityGroup",
	"DisassociateRouteTable", "DeleteRouteTable", "DetachInternetGateway", "DeleteInternetGateway", "DeleteSubnet", "DeleteVpc",
}

// TestJanitorDeletesInDependencyOrder: handed the listing backwards,
// Delete still calls the API in dependency order, waits for the instances
// to be terminated before anything they use, deletes exactly the listed
// resources (the VPC's defaults with it) and nothing else. The fake
// refuses any delete out of order, so a wrong order would show as
// retries and leftovers.
func TestJanitorDeletesInDependencyOrder(t *testing.T) {
	a := newJanAccount(t)
	a.fake.pollsToTerminate = 2
	j, rec, _ := newTestJanitor(t, a.fake)
	rs, err := j.List(context.Background(), infra.JanitorFilter{Now: janTestNow})
	if err != nil {
		t.Fatal(err)
	}
	slices.Reverse(rs)
	left, err := j.Delete(context.Background(), rs)
	if err != nil || left != nil {
		t.Fatalf("left %v, %v", left, err)
	}
	calls := rec.log()
	if err := janOpsInOrder(calls, janDeletionOrder...); err != nil {
		t.Error(err)
	}
	if calls[0] != "TerminateInstances i-old-1,i-old-2,i-old-3" || calls[1] != "sleep 5s" || calls[2] != "sleep 10s" || !strings.HasPrefix(calls[3], "DeleteVolume") {
		t.Errorf("want one TerminateInstances, then the waits for terminated (5s, 10s), then the volumes; calls: %q", calls)
	}
	if n := len(slices.DeleteFunc(slices.Clone(calls), func(c string) bool { return !strings.HasPrefix(c, "sleep") })); n != 2 {
		t.Errorf("%d waits, want the 2 for termination (no refusal); calls: %q", n, calls)
	}
	for _, r := range a.old {
		if a.fake.has(r.ID) {
			t.Errorf("%s still there", r)
		}
	}
	for _, id := range []string{"rtb-main-old", "sg-default-old"} {
		if a.fake.has(id) {
			t.Errorf("%s did not go with its VPC", id)
		}
	}
	for _, id := range a.untouched() {
		if !a.fake.has(id) {
			t.Errorf("%s was deleted", id)
		}
	}
}

// TestJanitorRetriesDependencyViolation: a security group refused twice
// with DependencyViolation is deleted on the third try, after waits of 2 s
// and 4 s.
func TestJanitorRetriesDependencyViolation(t *testing.T) {
	a := newJanAccount(t)
	a.fake.refuseWith("DeleteSecurityGroup", "sg-old", janCodeDependencyViolation, 2)
	j, rec, _ := newTestJanitor(t, a.fake)
	left, err := j.Delete(context.Background(), a.old)
	if err != nil || left != nil {
		t.Fatalf("left %v, %v", left, err)
	}
	calls := rec.log()
	first := slices.Index(calls, "DeleteSecurityGroup sg-old")
	want := []string{"DeleteSecurityGroup sg-old", "sleep 2s", "DeleteSecurityGroup sg-old", "sleep 4s", "DeleteSecurityGroup sg-old", "DisassociateRouteTable rtbassoc-old"}
	if first < 0 || !slices.Equal(calls[first:min(len(calls), first+len(want))], want) {
		t.Errorf("want %q in the calls: %q", want, calls)
	}
	if a.fake.has("sg-old") || a.fake.has("vpc-old") {
		t.Error("the security group or its VPC is still there")
	}
}

// janWaitsFor adds up the recorded waits that follow each call of "op id",
// up to the next call.
func janWaitsFor(calls []string, call string) (attempts int, waited time.Duration, err error) {
	current := ""
	for _, c := range calls {
		s, ok := strings.CutPrefix(c, "sleep ")
		if !ok {
			current = c
			if c == call {
				attempts++
			}
			continue
		}
		if current != call {
			continue
		}
		d, perr := time.ParseDuration(s)
		if perr != nil {
			return 0, 0, perr
		}
		waited += d
	}
	return attempts, waited, nil
}

// TestJanitorDependencyViolationBounded: a security group always refused
// remains, as does its VPC, after retries whose waits stay within the
// budget; everything else goes; the error names both, and is exit 6.
func TestJanitorDependencyViolationBounded(t *testing.T) {
	a := newJanAccount(t)
	a.fake.refuseWith("DeleteSecurityGroup", "sg-old", janCodeDependencyViolation, -1)
	j, rec, _ := newTestJanitor(t, a.fake)
	left, err := j.Delete(context.Background(), a.old)
	var want []infra.Resource
	for _, r := range a.old {
		if r.ID == "sg-old" || r.ID == "vpc-old" {
			want = append(want, r)
		}
	}
	janSameResources(t, "remaining", left, want)
	if exitcode.Of(err) != exitcode.Teardown || err == nil || !strings.Contains(err.Error(), "security-group sg-old: ") ||
		!strings.Contains(err.Error(), "vpc vpc-old: ") || !strings.Contains(err.Error(), janCodeDependencyViolation) {
		t.Errorf("error (exit %d): %v", exitcode.Of(err), err)
	}
	calls := rec.log()
	for _, call := range []string{"DeleteSecurityGroup sg-old", "DeleteVpc vpc-old"} {
		attempts, waited, err := janWaitsFor(calls, call)
		if err != nil {
			t.Fatal(err)
		}
		if attempts < 3 || waited > janDependencyRetry.Budget || waited <= janDependencyRetry.Budget-janDependencyRetry.Max {
			t.Errorf("%s: %d attempts, waits adding up to %s; want retries until the waits reach the budget %s, not past it", call, attempts, waited, janDependencyRetry.Budget)
		}
	}
	for _, r := range a.old {
		if r.ID != "sg-old" && r.ID != "vpc-old" && a.fake.has(r.ID) {
			t.Errorf("%s still there", r)
		}
	}
}

// TestJanitorInstancesThatNeverTerminate: instances still shutting down
// when the wait's budget is spent remain, and so do the things they use
// (after their own bounded retries); the rest goes.
func TestJanitorInstancesThatNeverTerminate(t *testing.T) {
	a := newJanAccount(t)
	a.fake.pollsToTerminate = 1 << 30
	j, rec, _ := newTestJanitor(t, a.fake)
	left, err := j.Delete(context.Background(), a.old)
	if exitcode.Of(err) != exitcode.Teardown || !strings.Contains(fmt.Sprint(err), "instance i-old-1: still shutting-down") {
		t.Errorf("error: %v", err)
	}
	var want []infra.Resource
	for _, r := range a.old {
		switch r.Type {
		case "instance", "placement-group", "security-group", "subnet", "vpc":
			want = append(want, r)
		case "volume":
			if r.ID == "vol-data-old" {
				want = append(want, r)
			}
		}
	}
	janSameResources(t, "remaining", left, want)
	// The waits between the termination and the first volume delete are
	// the wait for terminated.
	calls := rec.log()
	var waited time.Duration
	for _, c := range calls[1:slices.IndexFunc(calls, func(c string) bool { return strings.HasPrefix(c, "DeleteVolume") })] {
		d, err := time.ParseDuration(strings.TrimPrefix(c, "sleep "))
		if err != nil {
			t.Fatalf("%q between TerminateInstances and DeleteVolume", c)
		}
		waited += d
	}
	if waited > janTerminateWait.Budget || waited <= janTerminateWait.Budget-janTerminateWait.Max {
		t.Errorf("waited %s for termination; want up to the budget %s", waited, janTerminateWait.Budget)
	}
	for _, id := range []string{"vol-spare-old", "key-old", "rtb-old", "igw-old"} {
		if a.fake.has(id) {
			t.Errorf("%s still there", id)
		}
	}
}

// TestJanitorTerminatesPastAGoneInstance: AWS refuses a whole
// TerminateInstances call for one unknown id; the janitor then terminates
// the others one by one and counts the unknown one as gone.
func TestJanitorTerminatesPastAGoneInstance(t *testing.T) {
	a := newJanAccount(t)
	j, rec, _ := newTestJanitor(t, a.fake)
	gone := infra.Resource{Type: "instance", ID: "i-gone", Region: janTestRegion, RunID: "r-old", Expires: janTestNow}
	left, err := j.Delete(context.Background(), append(slices.Clone(a.old[:3]), gone))
	if err != nil || left != nil {
		t.Fatalf("left %v, %v", left, err)
	}
	want := []string{"TerminateInstances i-gone,i-old-1,i-old-2,i-old-3", "TerminateInstances i-gone", "TerminateInstances i-old-1", "TerminateInstances i-old-2", "TerminateInstances i-old-3"}
	if calls := rec.log(); !slices.Equal(calls, want) {
		t.Errorf("calls %q, want %q", calls, want)
	}
	for _, r := range a.old[:3] {
		if a.fake.has(r.ID) {
			t.Errorf("%s not terminated", r.ID)
		}
	}
}

// TestJanitorPlacementGroupsNotImplemented: an endpoint without placement
// groups (moto) is a warning, "cannot list placement groups", and the rest
// is listed; any other refusal is an error (exit 3), the rest still
// listed.
func TestJanitorPlacementGroupsNotImplemented(t *testing.T) {
	withoutPG := func(rs []infra.Resource) []infra.Resource {
		return slices.DeleteFunc(slices.Clone(rs), func(r infra.Resource) bool { return r.Type == "placement-group" })
	}
	t.Run("not implemented", func(t *testing.T) {
		a := newJanAccount(t)
		a.fake.placementGroups = janMotoNotImplemented("DescribePlacementGroups")
		j, _, logs := newTestJanitor(t, a.fake)
		got, err := j.List(context.Background(), infra.JanitorFilter{Now: janTestNow})
		if err != nil {
			t.Fatal(err)
		}
		janSameResources(t, "listed", got, withoutPG(a.old))
		if !strings.Contains(logs.String(), "level=WARN msg=\"cannot list placement groups") {
			t.Errorf("no warning:\n%s", logs)
		}
	})
	t.Run("refused", func(t *testing.T) {
		a := newJanAccount(t)
		a.fake.placementGroups = janAPIErr("UnauthorizedOperation", "You are not authorized to perform this operation.")
		j, _, _ := newTestJanitor(t, a.fake)
		got, err := j.List(context.Background(), infra.JanitorFilter{Now: janTestNow})
		if exitcode.Of(err) != exitcode.Infra || !strings.Contains(fmt.Sprint(err), "listing placement-groups: api error UnauthorizedOperation") {
			t.Errorf("error (exit %d): %v", exitcode.Of(err), err)
		}
		janSameResources(t, "listed", got, withoutPG(a.old))
	})
}

// TestJanitorLeavesOtherRegions: a resource of another region (or of a
// type it does not know) is not touched and remains, with the reason.
func TestJanitorLeavesOtherRegions(t *testing.T) {
	a := newJanAccount(t)
	j, rec, _ := newTestJanitor(t, a.fake)
	east := a.old[len(a.old)-1]
	east.Region = "us-east-1"
	odd := infra.Resource{Type: "nat-gateway", ID: "nat-1", Region: janTestRegion, RunID: "r-old", Expires: janTestNow}
	left, err := j.Delete(context.Background(), []infra.Resource{east, odd})
	janSameResources(t, "remaining", left, []infra.Resource{odd, east})
	if exitcode.Of(err) != exitcode.Teardown ||
		!strings.Contains(fmt.Sprint(err), `vpc vpc-old: in region "us-east-1", not this janitor's "us-west-2"`) ||
		!strings.Contains(fmt.Sprint(err), "nat-gateway nat-1: not a type the aws janitor deletes") {
		t.Errorf("error %v", err)
	}
	if calls := rec.log(); len(calls) != 0 {
		t.Errorf("calls %q", calls)
	}
}

// TestNewJanitorNeedsARegion: no region is a setting error (exit 2).
func TestNewJanitorNeedsARegion(t *testing.T) {
	j, err := NewJanitor(context.Background(), "")
	var se *infra.SettingError
	if j != nil || !errors.As(err, &se) || se.Setting != "region" || exitcode.Of(err) != exitcode.Config {
		t.Errorf("janitor %v, error %v", j, err)
	}
}
