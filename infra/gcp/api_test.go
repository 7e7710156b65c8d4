package gcp

import (
	"encoding/json"
	"errors"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"google.golang.org/api/option"
)

// apiServer answers the Compute REST API from hand-written fixtures in the
// API's shape: GET /compute/v1/<path> is testdata/api/<path>.json, or the
// case file a test put in its place; a fixture with an "error" object is
// sent with that error's code. What has no fixture is the API's 404. It
// records every request, so a test can assert what was asked.
type apiServer struct {
	t   *testing.T
	srv *httptest.Server

	mu       sync.Mutex
	override map[string]string // path after /compute/v1/ → file under testdata/cases
	requests []apiRequest
}

type apiRequest struct {
	Method, Path string
	Query        url.Values
}

const apiPrefix = "/compute/v1/"

func newAPIServer(t *testing.T) *apiServer {
	t.Helper()
	s := &apiServer{t: t, override: map[string]string{}}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.srv.Close)
	return s
}

// options are the client options that reach the server.
func (s *apiServer) options() []option.ClientOption {
	return []option.ClientOption{option.WithEndpoint(s.srv.URL), option.WithoutAuthentication()}
}

// answer makes path (after /compute/v1/) answer with testdata/cases/file.
func (s *apiServer) answer(path, file string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.override[path] = file
}

func (s *apiServer) serve(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.requests = append(s.requests, apiRequest{Method: r.Method, Path: r.URL.Path, Query: r.URL.Query()})
	file, overridden := s.override[strings.TrimPrefix(r.URL.Path, apiPrefix)]
	s.mu.Unlock()

	rel, ok := strings.CutPrefix(r.URL.Path, apiPrefix)
	if !ok || r.Method != http.MethodGet || strings.Contains(rel, "..") {
		writeAPIError(w, http.StatusBadRequest, "badRequest", "unexpected request "+r.Method+" "+r.URL.Path)
		return
	}
	path := filepath.Join("testdata", "api", filepath.FromSlash(rel)+".json")
	if overridden {
		path = filepath.Join("testdata", "cases", file)
	}
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) && !overridden {
		writeAPIError(w, http.StatusNotFound, "notFound", "The resource '"+strings.TrimPrefix(rel, "")+"' was not found")
		return
	}
	if err != nil {
		s.t.Errorf("fixture server: %v", err)
		writeAPIError(w, http.StatusInternalServerError, "backendError", err.Error())
		return
	}
	var probe struct {
		Error *struct {
			Code int `json:"code"`
		} `json:"error"`
	}
	if err := json.Unmarshal(b, &probe); err != nil {
		s.t.Errorf("fixture %s: %v", path, err)
	}
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	if probe.Error != nil {
		w.WriteHeader(probe.Error.Code)
	}
	_, _ = w.Write(b)
}

// writeAPIError answers as the API does when it refuses.
func writeAPIError(w http.ResponseWriter, code int, reason, msg string) {
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{
		"code": code, "message": msg,
		"errors": []map[string]string{{"message": msg, "domain": "global", "reason": reason}},
	}})
}

// paths returns the paths (after /compute/v1/) requested so far, in order.
func (s *apiServer) paths() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for _, r := range s.requests {
		out = append(out, strings.TrimPrefix(r.Path, apiPrefix))
	}
	return out
}

// request returns the first request for path (after /compute/v1/).
func (s *apiServer) request(path string) (apiRequest, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, r := range s.requests {
		if strings.TrimPrefix(r.Path, apiPrefix) == path {
			return r, true
		}
	}
	return apiRequest{}, false
}
