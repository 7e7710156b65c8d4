package main

import (
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/ybbench/ybbench/internal/exitcode"
)

// --max-cost below the run's upper bound is refused before any call to
// the cloud: with the real AWS provider pointed at an endpoint that counts
// what it is asked, the refusal (exit 2, naming --max-cost) comes with
// zero requests and no run. The control: with a bound above the cost, the
// same command does reach the endpoint (its check asks the API).
func TestMaxCostRefusedBeforeAnyCloudCall(t *testing.T) {
	var calls atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		w.WriteHeader(http.StatusBadRequest)
		w.Write([]byte(`<Response><Errors><Error><Code>AuthFailure</Code><Message>the test's endpoint refuses</Message></Error></Errors></Response>`))
	}))
	defer srv.Close()
	t.Setenv("AWS_ENDPOINT_URL", srv.URL)
	t.Setenv("AWS_ACCESS_KEY_ID", "AKIATESTTESTTESTTEST")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "test-secret")
	t.Setenv("AWS_SESSION_TOKEN", "")
	t.Setenv("AWS_PROFILE", "")
	t.Setenv("AWS_CONFIG_FILE", "/nonexistent/ybbench-test")
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", "/nonexistent/ybbench-test")
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	t.Setenv("AWS_MAX_ATTEMPTS", "1")
	runs := t.TempDir()
	args := []string{"up", "ycsb-ysql", "--provider", "aws", "--region", "us-east-1", "--ssh-cidr", "203.0.113.7/32", "--runs-dir", runs}
	code, out := ybbenchIn(t, append(args, "--max-cost", "1")...)
	if code != exitcode.Config || !strings.Contains(out, "--max-cost: 1.00 USD is below the run's upper bound") {
		t.Fatalf("exit %d, want 2 naming --max-cost:\n%s", code, out)
	}
	if n := calls.Load(); n != 0 {
		t.Errorf("the refused run made %d requests to the cloud's endpoint, want 0", n)
	}
	if entries, _ := os.ReadDir(runs); len(entries) != 0 {
		t.Errorf("the refused run made %d entries in the runs directory", len(entries))
	}
	code, out = ybbenchIn(t, append(args, "--max-cost", "10000")...)
	if code == 0 || calls.Load() == 0 {
		t.Errorf("the control (a bound above the cost): exit %d with %d requests; want the check to ask the endpoint and be refused:\n%s", code, calls.Load(), out)
	}
	if entries, _ := os.ReadDir(runs); len(entries) != 0 {
		t.Errorf("the control made %d entries in the runs directory", len(entries))
	}
}
