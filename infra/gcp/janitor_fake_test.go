package gcp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/api/option"
)

// janProject is the fake account's project.
const janProject = "ybb-test-project"

// janFake is a Compute Engine REST endpoint for the janitor's tests. It
// answers the list calls with the fixtures in testdata/janitor (the same
// answer whatever the filter: the janitor must select on its own side
// too), answers each DELETE with an operation or a scripted error, serves
// each operation's states on polls at the operation's own scope (zone,
// region or global, as GCE does), and records every request.
type janFake struct {
	t *testing.T

	mu       sync.Mutex
	requests []janRequest
	// script holds the replies to the DELETEs of a resource path (after
	// /compute/v1/projects/<project>/), in turn; the last one repeats.
	// A path without a script gets janDefaultReply.
	script map[string][]janReply
	ops    map[string]*janOp
	nextOp int
	// instead maps a fixture to the one served in its place.
	instead map[string]string
	sleeps  []time.Duration
	log     bytes.Buffer
}

// janRequest is one request the fake received.
type janRequest struct {
	Method string
	// Path is the part after /compute/v1/projects/<project>/.
	Path  string
	Query url.Values
}

// janReply is the answer to one DELETE: an HTTP error (Status, with the
// Fixture as its body), or, with Status 0, the operation Fixture whose
// polls serve the Polls fixtures in turn (the last one repeats).
type janReply struct {
	Status  int
	Fixture string
	Polls   []string
}

// janDefaultReply is a deletion that goes well: pending, then done.
var janDefaultReply = janReply{Fixture: "operation-pending.json", Polls: []string{"operation-done.json"}}

// janOp is an operation the fake started.
type janOp struct {
	scope, target string
	polls         []string
	// served lists the fixtures its polls got.
	served []string
}

// newJanFake starts the fake and a janitor pointed at it, whose waits
// between attempts are recorded, not slept.
func newJanFake(t *testing.T, opts ...JanitorOption) (*janFake, *Janitor) {
	t.Helper()
	f := &janFake{t: t, script: map[string][]janReply{}, ops: map[string]*janOp{}, instead: map[string]string{}}
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	opts = append([]JanitorOption{
		JanitorClientOptions(option.WithEndpoint(srv.URL), option.WithoutAuthentication()),
		JanitorLogger(slog.New(slog.NewTextHandler(&janSyncWriter{mu: &f.mu, w: &f.log}, nil))),
	}, opts...)
	j, err := NewJanitor(t.Context(), janProject, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { j.Close() })
	j.sleep = func(_ context.Context, d time.Duration) error {
		f.mu.Lock()
		defer f.mu.Unlock()
		f.sleeps = append(f.sleeps, d)
		return nil
	}
	return f, j
}

// janSyncWriter writes the janitor's log under the fake's lock.
type janSyncWriter struct {
	mu *sync.Mutex
	w  *bytes.Buffer
}

func (s *janSyncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}

func (f *janFake) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	rest, ok := strings.CutPrefix(r.URL.Path, "/compute/v1/projects/"+janProject+"/")
	f.requests = append(f.requests, janRequest{Method: r.Method, Path: rest, Query: r.URL.Query()})
	if !ok {
		f.t.Errorf("request outside the project: %s %s", r.Method, r.URL.Path)
		http.NotFound(w, r)
		return
	}
	switch {
	case r.Method == http.MethodGet && rest == "aggregated/instances" && r.URL.Query().Get("pageToken") == "page-2":
		f.file(w, http.StatusOK, "instances-aggregated-page-2.json")
	case r.Method == http.MethodGet && rest == "aggregated/instances":
		f.file(w, http.StatusOK, "instances-aggregated.json")
	case r.Method == http.MethodGet && rest == "global/firewalls":
		f.file(w, http.StatusOK, "firewalls.json")
	case r.Method == http.MethodGet && rest == "aggregated/subnetworks":
		f.file(w, http.StatusOK, "subnetworks-aggregated.json")
	case r.Method == http.MethodGet && rest == "global/networks":
		f.file(w, http.StatusOK, "networks.json")
	case r.Method == http.MethodGet && strings.Contains(rest, "/operations/"):
		scope, name, _ := strings.Cut(rest, "/operations/")
		op := f.ops[name]
		if op == nil || op.scope != scope {
			f.t.Errorf("poll of an unknown operation, or at another scope than its own: %s", rest)
			f.file(w, http.StatusNotFound, "error-not-found.json")
			return
		}
		next := op.polls[0]
		if len(op.polls) > 1 {
			op.polls = op.polls[1:]
		}
		op.served = append(op.served, next)
		f.operation(w, next, name, op)
	case r.Method == http.MethodDelete:
		reply := janDefaultReply
		if s := f.script[rest]; len(s) > 0 {
			reply = s[0]
			if len(s) > 1 {
				f.script[rest] = s[1:]
			}
		}
		if reply.Status != 0 {
			f.file(w, reply.Status, reply.Fixture)
			return
		}
		f.nextOp++
		name := fmt.Sprintf("operation-%d", f.nextOp)
		op := &janOp{scope: janOpScope(rest), target: rest, polls: reply.Polls}
		f.ops[name] = op
		f.operation(w, reply.Fixture, name, op)
	default:
		f.t.Errorf("unexpected request %s %s", r.Method, r.URL)
		http.NotFound(w, r)
	}
}

// janOpScope is where GCE keeps a deletion's operation: the resource's
// zone or region, else global.
func janOpScope(resource string) string {
	parts := strings.Split(resource, "/")
	if parts[0] == "zones" || parts[0] == "regions" {
		return parts[0] + "/" + parts[1]
	}
	return "global"
}

// file writes a fixture (or the one served instead) as the response.
func (f *janFake) file(w http.ResponseWriter, status int, name string) {
	if other, ok := f.instead[name]; ok {
		name = other
	}
	b, err := os.ReadFile(filepath.Join("testdata", "janitor", name))
	if err != nil {
		f.t.Error(err)
	}
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	w.WriteHeader(status)
	w.Write(b)
}

// operation writes an operation fixture with this operation's name, links
// and scope filled in.
func (f *janFake) operation(w http.ResponseWriter, fixture, name string, op *janOp) {
	b, err := os.ReadFile(filepath.Join("testdata", "janitor", fixture))
	if err != nil {
		f.t.Error(err)
	}
	var o map[string]any
	if err := json.Unmarshal(b, &o); err != nil {
		f.t.Errorf("%s: %v", fixture, err)
	}
	base := "https://www.googleapis.com/compute/v1/projects/" + janProject + "/"
	o["name"] = name
	o["targetLink"] = base + op.target
	o["selfLink"] = base + op.scope + "/operations/" + name
	if kind, where, ok := strings.Cut(op.scope, "/"); ok {
		o[strings.TrimSuffix(kind, "s")] = base + kind + "/" + where
	}
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	json.NewEncoder(w).Encode(o)
}

// deletes lists the DELETE requests' resource paths, in the order
// received.
func (f *janFake) deletes() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	for _, r := range f.requests {
		if r.Method == http.MethodDelete {
			out = append(out, r.Path)
		}
	}
	return out
}

// methods lists the distinct methods of the requests received.
func (f *janFake) methods() map[string]int {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := map[string]int{}
	for _, r := range f.requests {
		out[r.Method]++
	}
	return out
}

// filters lists the filter query of every request to path.
func (f *janFake) filters(path string) []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	for _, r := range f.requests {
		if r.Path == path {
			out = append(out, r.Query.Get("filter"))
		}
	}
	return out
}

// logText is what the janitor logged.
func (f *janFake) logText() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.log.String()
}
