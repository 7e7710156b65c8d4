package yugabyte

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/ybbench/ybbench/infra"
	"github.com/ybbench/ybbench/provision"
)

// dialingRunner is a runner that dials "from its hosts": every dial goes
// to target, and is recorded as host and address asked for.
type dialingRunner struct {
	provision.Runner
	target string
	mu     sync.Mutex
	asked  []string
}

func (d *dialingRunner) Dial(ctx context.Context, h infra.Host, network, addr string) (net.Conn, error) {
	d.mu.Lock()
	d.asked = append(d.asked, h.Name+" "+network+" "+addr)
	d.mu.Unlock()
	var nd net.Dialer
	return nd.DialContext(ctx, network, d.target)
}

// TestMasterAPIThroughTheRunnersHosts: with a runner that dials from its
// hosts, each master is asked at its private address from its own host,
// never from the orchestrator (whose firewall may close port 7000).
func TestMasterAPIThroughTheRunnersHosts(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/api/v1/is-leader" || r.Host != "10.9.9.1:7000" {
			http.Error(w, "unexpected "+r.Host+r.URL.Path, http.StatusTeapot)
			return
		}
		w.WriteHeader(http.StatusOK)
	}))
	defer srv.Close()
	r := &dialingRunner{target: srv.Listener.Addr().String()}
	f := New(WithHTTPClient(&http.Client{Timeout: 5 * time.Second}))
	h := infra.Host{Name: "m1", PublicIP: "203.0.113.9", PrivateIP: "10.9.9.1"}
	code, body, err := f.api(r).get(context.Background(), h, "/api/v1/is-leader")
	if err != nil || code != http.StatusOK {
		t.Fatalf("get: %d %q %v", code, body, err)
	}
	if len(r.asked) != 1 || r.asked[0] != "m1 tcp 10.9.9.1:7000" {
		t.Fatalf("dials %q, want one from m1 to 10.9.9.1:7000", r.asked)
	}

	// A runner that cannot dial from its hosts: the default URL, directly.
	if c := f.api(struct{ provision.Runner }{}); c.dial != nil || c.base(h) != "http://203.0.113.9:7000" {
		t.Fatalf("without a dialing runner: dial set %v, base %s", c.dial != nil, c.base(h))
	}
	// A URL of the caller's is dialed as it is.
	own := New(WithMasterURL(func(infra.Host) string { return "http://127.0.0.1:1" }))
	if c := own.api(r); c.dial != nil || c.base(h) != "http://127.0.0.1:1" {
		t.Fatalf("with WithMasterURL: dial set %v, base %s", c.dial != nil, c.base(h))
	}
}
