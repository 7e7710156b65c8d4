package gcp

import (
	"errors"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ybbench/ybbench/infra"
	"github.com/ybbench/ybbench/infra/cloudtag"
	"github.com/ybbench/ybbench/internal/exitcode"
)

// The fake account (testdata/janitor) holds the resources of three runs:
// A and B expired at janNow (A in us-central1, B in europe-west1), C
// not; and resources that are not ybbench's or whose marks are damaged.
const (
	janRunA = "kv-ycql-261130-0900-aaaa0001"
	janRunB = "kv-ycql-261130-0800-bbbb0002"
)

var janNow = time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)

// The expected resources, written from the fixtures.
var (
	janExpiresA = time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	janExpiresB = time.Date(2026, 12, 1, 8, 0, 0, 0, time.UTC)

	janInstancesA = []infra.Resource{
		{Type: "instance", ID: "ybb-8f9080c7a32a4d55-client", Region: "us-central1", Zone: "us-central1-a", RunID: janRunA, Expires: janExpiresA},
		{Type: "instance", ID: "ybb-8f9080c7a32a4d55-db-0", Region: "us-central1", Zone: "us-central1-a", RunID: janRunA, Expires: janExpiresA},
		{Type: "instance", ID: "ybb-8f9080c7a32a4d55-db-1", Region: "us-central1", Zone: "us-central1-a", RunID: janRunA, Expires: janExpiresA},
	}
	janFirewallsA = []infra.Resource{
		{Type: "firewall", ID: "ybb-8f9080c7a32a4d55-internal", RunID: janRunA, Expires: janExpiresA},
		{Type: "firewall", ID: "ybb-8f9080c7a32a4d55-ssh", RunID: janRunA, Expires: janExpiresA},
	}
	janSubnetworkA = infra.Resource{Type: "subnetwork", ID: "ybb-8f9080c7a32a4d55-subnet", Region: "us-central1", RunID: janRunA, Expires: janExpiresA}
	janNetworkA    = infra.Resource{Type: "network", ID: "ybb-8f9080c7a32a4d55-net", RunID: janRunA, Expires: janExpiresA}

	janInstanceB   = infra.Resource{Type: "instance", ID: "ybb-f69c431d0b695ace-db-0", Region: "europe-west1", Zone: "europe-west1-b", RunID: janRunB, Expires: janExpiresB}
	janFirewallB   = infra.Resource{Type: "firewall", ID: "ybb-f69c431d0b695ace-ssh", RunID: janRunB, Expires: janExpiresB}
	janSubnetworkB = infra.Resource{Type: "subnetwork", ID: "ybb-f69c431d0b695ace-subnet", Region: "europe-west1", RunID: janRunB, Expires: janExpiresB}
	janNetworkB    = infra.Resource{Type: "network", ID: "ybb-f69c431d0b695ace-net", RunID: janRunB, Expires: janExpiresB}
)

// janRunAResources are run A's resources in deletion order.
func janRunAResources() []infra.Resource {
	return slices.Concat(janInstancesA, janFirewallsA, []infra.Resource{janSubnetworkA, janNetworkA})
}

func janDiff(t *testing.T, got, want []infra.Resource) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %d resource(s):\n%s\nwant %d:\n%s", len(got), janLines(got), len(want), janLines(want))
	}
}

func janLines(rs []infra.Resource) string {
	var b strings.Builder
	for _, r := range rs {
		b.WriteString("  " + r.String() + " zone=" + r.Zone + " region=" + r.Region + "\n")
	}
	return b.String()
}

// TestJanitorListExpired: the dry run lists exactly the expired resources
// with the managed mark, in deletion order, and deletes nothing; the
// unexpired run, the unmanaged resources (labels without the managed key
// or with managed=false, a network whose description lacks the mark, a
// firewall whose name is not one cloudtag makes, the default network) and
// the damaged ones are not listed, and the damaged ones are named in a
// warning.
func TestJanitorListExpired(t *testing.T) {
	f, j := newJanFake(t)
	got, err := j.List(t.Context(), infra.JanitorFilter{Now: janNow})
	if err != nil {
		t.Fatal(err)
	}
	want := slices.Concat(
		[]infra.Resource{janInstanceB}, janInstancesA,
		janFirewallsA, []infra.Resource{janFirewallB},
		[]infra.Resource{janSubnetworkB, janSubnetworkA},
		[]infra.Resource{janNetworkA, janNetworkB})
	janDiff(t, got, want)

	if m := f.methods(); len(m) != 1 || m[http.MethodGet] == 0 {
		t.Errorf("a dry run made requests other than GETs: %v", m)
	}
	// Both pages of the aggregated list were read, each with the filter.
	wantFilter := `labels.ybbench-managed = "true"`
	if got := f.filters("aggregated/instances"); !slices.Equal(got, []string{wantFilter, wantFilter}) {
		t.Errorf("instance list filters %q, want %q on both pages", got, wantFilter)
	}
	log := f.logText()
	for _, damaged := range []string{"ybb-8f9080c7a32a4d55-db-2", "ybb-8f9080c7a32a4d55-extra"} {
		if !strings.Contains(log, damaged) {
			t.Errorf("no warning names %s:\n%s", damaged, log)
		}
	}
	for _, unmanaged := range []string{"web-1", "-kept", "allow-ybbench", "ybb-e6620856b769f26a-net", "default"} {
		if strings.Contains(log, unmanaged) {
			t.Errorf("the log names %s, which is not ybbench's:\n%s", unmanaged, log)
		}
	}
}

// TestJanitorListRun: one run's resources, whatever their expiry; the
// instance list asks for the run's hash label as well as the managed one.
func TestJanitorListRun(t *testing.T) {
	f, j := newJanFake(t)
	got, err := j.List(t.Context(), infra.JanitorFilter{RunID: janRunA, Now: janNow})
	if err != nil {
		t.Fatal(err)
	}
	janDiff(t, got, janRunAResources())
	wantFilter := `(labels.ybbench-managed = "true") (labels.ybbench-run-hash = "8f9080c7a32a4d55")`
	if got := f.filters("aggregated/instances"); len(got) == 0 || got[0] != wantFilter {
		t.Errorf("instance list filter %q, want %q", got, wantFilter)
	}

	// The unexpired run is listed when asked for by its id.
	got, err = j.List(t.Context(), infra.JanitorFilter{RunID: "kv-ycql-261201-1100-cccc0003", Now: janNow})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, r := range got {
		ids = append(ids, r.ID)
	}
	wantIDs := []string{"ybb-f1eb40c53b24fc76-db-0", "ybb-f1eb40c53b24fc76-ssh", "ybb-f1eb40c53b24fc76-subnet", "ybb-f1eb40c53b24fc76-net"}
	if !slices.Equal(ids, wantIDs) {
		t.Errorf("run C: %q, want %q", ids, wantIDs)
	}
}

// TestJanitorListRegion: with a region, the instances in its zones, its
// subnetworks, and the networks and firewalls of the runs whose
// subnetwork is there: run B (europe-west1) is left to its region.
func TestJanitorListRegion(t *testing.T) {
	_, j := newJanFake(t, JanitorRegion("us-central1"))
	got, err := j.List(t.Context(), infra.JanitorFilter{Now: janNow})
	if err != nil {
		t.Fatal(err)
	}
	janDiff(t, got, janRunAResources())
}

// TestJanSelectGlobalWithoutSubnetwork: a run whose subnetwork is gone
// leaves its network and firewalls to the janitor of any region.
func TestJanSelectGlobalWithoutSubnetwork(t *testing.T) {
	marks := cloudtag.Found{Run: janRunB, RunHash: cloudtag.RunHash(janRunB), Expires: janExpiresB}
	all := []janFound{{res: janNetworkB, marks: marks}, {res: janFirewallB, marks: marks}}
	janDiff(t, janSelect(all, infra.JanitorFilter{Now: janNow}, "us-central1"), []infra.Resource{janFirewallB, janNetworkB})
	withSubnet := append(all, janFound{res: janSubnetworkB, marks: marks})
	janDiff(t, janSelect(withSubnet, infra.JanitorFilter{Now: janNow}, "us-central1"), nil)
}

// TestJanitorListUnreachable: a zone the aggregated list could not reach
// makes the listing fail, naming it, rather than sweep around it.
func TestJanitorListUnreachable(t *testing.T) {
	f, j := newJanFake(t)
	f.instead["instances-aggregated-page-2.json"] = "instances-aggregated-page-2-unreachable.json"
	got, err := j.List(t.Context(), infra.JanitorFilter{Now: janNow})
	if err == nil || !strings.Contains(err.Error(), "zones/asia-east1-a") || got != nil {
		t.Fatalf("listed %v, error %v; want no listing and an error naming zones/asia-east1-a", got, err)
	}
	if exitcode.Of(err) != exitcode.Infra {
		t.Errorf("exit code %d, want %d (the cloud cannot be listed)", exitcode.Of(err), exitcode.Infra)
	}
}

func TestJanitorListNeedsRunOrTime(t *testing.T) {
	f, j := newJanFake(t)
	if _, err := j.List(t.Context(), infra.JanitorFilter{}); err == nil {
		t.Error("an empty filter was accepted")
	}
	if len(f.methods()) != 0 {
		t.Errorf("an empty filter made requests: %v", f.methods())
	}
}

// janStage is the deletion stage of a DELETE request's path.
func janStage(t *testing.T, path string) int {
	switch {
	case strings.HasPrefix(path, "zones/") && strings.Contains(path, "/instances/"):
		return 0
	case strings.HasPrefix(path, "global/firewalls/"):
		return 1
	case strings.HasPrefix(path, "regions/") && strings.Contains(path, "/subnetworks/"):
		return 2
	case strings.HasPrefix(path, "global/networks/"):
		return 3
	}
	t.Errorf("DELETE of an unexpected kind: %s", path)
	return -1
}

// janCheckOrder checks that the DELETEs came kind by kind in dependency
// order, and that they were, as a set, want.
func janCheckOrder(t *testing.T, deletes, want []string) {
	t.Helper()
	for i := 1; i < len(deletes); i++ {
		if janStage(t, deletes[i]) < janStage(t, deletes[i-1]) {
			t.Errorf("DELETE %s came after %s:\n%s", deletes[i], deletes[i-1], strings.Join(deletes, "\n"))
		}
	}
	got := slices.Sorted(slices.Values(deletes))
	want = slices.Sorted(slices.Values(want))
	if !slices.Equal(got, want) {
		t.Errorf("DELETEs:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestJanitorDelete: Delete issues exactly run A's DELETEs, kind by kind,
// and waits for each operation, polled at its own scope, to be DONE.
func TestJanitorDelete(t *testing.T) {
	f, j := newJanFake(t)
	// One instance's operation is still running at the first poll.
	f.script["zones/us-central1-a/instances/ybb-8f9080c7a32a4d55-db-0"] = []janReply{
		{Fixture: "operation-pending.json", Polls: []string{"operation-running.json", "operation-done.json"}}}
	rs, err := j.List(t.Context(), infra.JanitorFilter{RunID: janRunA, Now: janNow})
	if err != nil {
		t.Fatal(err)
	}
	remaining, err := j.Delete(t.Context(), rs)
	if err != nil || remaining != nil {
		t.Fatalf("remaining %v, error %v", remaining, err)
	}
	janCheckOrder(t, f.deletes(), []string{
		"zones/us-central1-a/instances/ybb-8f9080c7a32a4d55-client",
		"zones/us-central1-a/instances/ybb-8f9080c7a32a4d55-db-0",
		"zones/us-central1-a/instances/ybb-8f9080c7a32a4d55-db-1",
		"global/firewalls/ybb-8f9080c7a32a4d55-internal",
		"global/firewalls/ybb-8f9080c7a32a4d55-ssh",
		"regions/us-central1/subnetworks/ybb-8f9080c7a32a4d55-subnet",
		"global/networks/ybb-8f9080c7a32a4d55-net",
	})
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.ops) != 7 {
		t.Errorf("%d operations started, want 7", len(f.ops))
	}
	for name, op := range f.ops {
		if len(op.served) == 0 || op.served[len(op.served)-1] != "operation-done.json" {
			t.Errorf("operation %s (%s) was not polled to DONE: %v", name, op.target, op.served)
		}
		if op.target == "zones/us-central1-a/instances/ybb-8f9080c7a32a4d55-db-0" && len(op.served) != 2 {
			t.Errorf("the running operation was polled %d time(s), want 2: %v", len(op.served), op.served)
		}
	}
	if len(f.sleeps) != 0 {
		t.Errorf("waited between attempts %d time(s), nothing was in use", len(f.sleeps))
	}
}

// TestJanitorDeleteFailures: a resource already gone counts as deleted;
// an operation that ends in an error leaves its resource, and Delete
// goes on; "in use" (as the DELETE's 400 or as the operation's error) is
// retried, a bounded number of times, and what stays in use remains.
func TestJanitorDeleteFailures(t *testing.T) {
	f, j := newJanFake(t)
	const (
		gone     = "zones/us-central1-a/instances/ybb-8f9080c7a32a4d55-db-1"
		broken   = "global/firewalls/ybb-8f9080c7a32a4d55-ssh"
		freed    = "regions/us-central1/subnetworks/ybb-8f9080c7a32a4d55-subnet"
		occupied = "global/networks/ybb-8f9080c7a32a4d55-net"
	)
	f.script[gone] = []janReply{{Status: http.StatusNotFound, Fixture: "error-not-found.json"}}
	f.script[broken] = []janReply{{Fixture: "operation-pending.json", Polls: []string{"operation-error-internal.json"}}}
	f.script[freed] = []janReply{
		{Status: http.StatusBadRequest, Fixture: "error-in-use.json"},
		{Fixture: "operation-pending.json", Polls: []string{"operation-error-in-use.json"}},
		janDefaultReply,
	}
	f.script[occupied] = []janReply{{Status: http.StatusBadRequest, Fixture: "error-in-use.json"}}

	remaining, err := j.Delete(t.Context(), janRunAResources())
	janDiff(t, remaining, []infra.Resource{janFirewallsA[1], janNetworkA})
	if exitcode.Of(err) != exitcode.Teardown {
		t.Errorf("exit code %d, want %d: %v", exitcode.Of(err), exitcode.Teardown, err)
	}
	for _, s := range []string{"ybb-8f9080c7a32a4d55-ssh", "INTERNAL_ERROR", "ybb-8f9080c7a32a4d55-net", "still in use after 6 attempts"} {
		if err == nil || !strings.Contains(err.Error(), s) {
			t.Errorf("error does not say %q: %v", s, err)
		}
	}

	deletes := f.deletes()
	count := map[string]int{}
	for _, d := range deletes {
		count[d]++
	}
	for path, n := range map[string]int{gone: 1, broken: 1, freed: 3, occupied: 6} {
		if count[path] != n {
			t.Errorf("%s: %d DELETE(s), want %d", path, count[path], n)
		}
	}
	janCheckOrder(t, slices.Compact(deletes), []string{
		"zones/us-central1-a/instances/ybb-8f9080c7a32a4d55-client",
		"zones/us-central1-a/instances/ybb-8f9080c7a32a4d55-db-0",
		gone,
		"global/firewalls/ybb-8f9080c7a32a4d55-internal",
		broken, freed, occupied,
	})
	f.mu.Lock()
	defer f.mu.Unlock()
	// The subnetwork's two refusals, then the network's five waits, which
	// add up to the retry's budget.
	s := time.Second
	if want := []time.Duration{5 * s, 10 * s, 5 * s, 10 * s, 20 * s, 40 * s, 60 * s}; !slices.Equal(f.sleeps, want) {
		t.Errorf("waited %v between attempts, want %v", f.sleeps, want)
	}
}

// TestJanitorDeleteUnknownKind: what the janitor does not delete remains,
// and nothing is asked of the API for it.
func TestJanitorDeleteUnknownKind(t *testing.T) {
	f, j := newJanFake(t)
	disk := infra.Resource{Type: "disk", ID: "ybb-8f9080c7a32a4d55-data", Zone: "us-central1-a", RunID: janRunA, Expires: janExpiresA}
	remaining, err := j.Delete(t.Context(), []infra.Resource{disk})
	janDiff(t, remaining, []infra.Resource{disk})
	if err == nil || !strings.Contains(err.Error(), "not a kind the gcp janitor deletes") {
		t.Errorf("error %v", err)
	}
	if len(f.methods()) != 0 {
		t.Errorf("requests made: %v", f.methods())
	}
}

func TestNewJanitorNeedsProject(t *testing.T) {
	_, err := NewJanitor(t.Context(), "")
	var se *infra.SettingError
	if !errors.As(err, &se) || se.Setting != "project" {
		t.Fatalf("error %v, want a SettingError naming project", err)
	}
	if exitcode.Of(err) != exitcode.Config {
		t.Errorf("exit code %d, want %d", exitcode.Of(err), exitcode.Config)
	}
}
