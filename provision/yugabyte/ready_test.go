package yugabyte

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ybbench/ybbench/infra"
)

func testAPI(base string) apiClient {
	return apiClient{http: &http.Client{Timeout: time.Second}, base: func(h infra.Host) string { return base + "/" + h.Name }}
}

func TestReadyWhole(t *testing.T) {
	c := sampleCluster()
	db := c.ByRole(infra.RoleDB)
	st := healthyState(c)
	_, srv := newFakeMasterAPI(func() apiState { return st })
	defer srv.Close()
	o, err := testAPI(srv.URL).waitReady(context.Background(), db, db, 3, true, 2*time.Second, 10*time.Millisecond, nil)
	if err != nil {
		t.Fatal(err)
	}
	if o.leaders[0].Name != "db1" || !strings.Contains(o.version, "2.20.0.0") {
		t.Errorf("observation %+v", o)
	}
}

// TestReadyPolls: the cluster comes up bit by bit (no leader, then a
// leader, then the tservers one by one); the check keeps polling until it
// is whole, and only then returns.
func TestReadyPolls(t *testing.T) {
	c := sampleCluster()
	db := c.ByRole(infra.RoleDB)
	var n atomic.Int32
	full := healthyState(c)
	_, srv := newFakeMasterAPI(func() apiState {
		k := int(n.Add(1))
		switch {
		case k < 5:
			return apiState{}
		case k < 15:
			st := full
			st.TServers = map[string]string{"10.0.0.1:9000": "ALIVE"}
			return st
		}
		return full
	})
	defer srv.Close()
	var seen []string
	_, err := testAPI(srv.URL).waitReady(context.Background(), db, db, 3, true, 5*time.Second, 5*time.Millisecond, func(p string) { seen = append(seen, p) })
	if err != nil {
		t.Fatal(err)
	}
	if len(seen) < 2 || !strings.Contains(seen[0], "no master leader") || !strings.Contains(strings.Join(seen, "\n"), "10.0.0.2 (db2) is not registered") {
		t.Errorf("progress seen: %q", seen)
	}
}

func TestReadyLeaderOnly(t *testing.T) {
	c := sampleCluster()
	db := c.ByRole(infra.RoleDB)
	api, srv := newFakeMasterAPI(func() apiState { return apiState{Leader: "db2"} })
	defer srv.Close()
	o, err := testAPI(srv.URL).waitReady(context.Background(), db, nil, 3, false, time.Second, 10*time.Millisecond, nil)
	if err != nil {
		t.Fatal(err)
	}
	if o.leaders[0].Name != "db2" {
		t.Errorf("leader %s", o.leaders[0].Name)
	}
	if api.count("/api/v1/tablet-servers") != 0 {
		t.Error("the leader-only wait read tablet-servers")
	}
}

// TestReadyTimeouts: a cluster that never becomes whole fails within the
// timeout, with an error that says what was last wrong and what was seen.
func TestReadyTimeouts(t *testing.T) {
	c := sampleCluster()
	db := c.ByRole(infra.RoleDB)
	healthy := healthyState(c)
	mod := func(f func(*apiState)) apiState {
		st := healthy
		st.TServers = map[string]string{}
		for k, v := range healthy.TServers {
			st.TServers[k] = v
		}
		f(&st)
		return st
	}
	cases := []struct {
		name  string
		state apiState
		want  []string
	}{
		{"dead tserver", mod(func(s *apiState) { s.TServers["10.0.0.3:9000"] = "DEAD"; s.Dead = []string{"uuid3"} }),
			[]string{"tserver 10.0.0.3:9000 (db3) is DEAD (last heartbeat 61.5 s ago)", "10.0.0.3:9000=DEAD", "dead nodes 1"}},
		{"missing tserver", mod(func(s *apiState) { delete(s.TServers, "10.0.0.2:9000") }),
			[]string{"tserver 10.0.0.2 (db2) is not registered with the master"}},
		{"no leader", apiState{},
			[]string{"no master leader elected yet (is-leader: 10.0.0.1: HTTP 503; 10.0.0.2: HTTP 503; 10.0.0.3: HTTP 503)", "last seen: no leader"}},
		{"two leaders", mod(func(s *apiState) { s.Leaders = []string{"db3"} }),
			[]string{"more than one master says it is the leader: 10.0.0.1, 10.0.0.3"}},
		{"master missing", mod(func(s *apiState) { s.Masters = s.Masters[:2]; s.MasterErrors = []string{"timed out"} }),
			[]string{"2 of 3 masters listed by the leader", "timed out"}},
		{"health dead nodes", mod(func(s *apiState) { s.Dead = []string{"uuid9"} }),
			[]string{"health-check lists dead nodes: uuid9"}},
		{"under-replicated", mod(func(s *apiState) { s.Under = 4 }),
			[]string{"health-check lists 4 under-replicated tablets"}},
		{"garbage", mod(func(s *apiState) { s.Garbage = true }),
			[]string{"leader 10.0.0.1 /api/v1/tablet-servers: not the JSON expected"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, srv := newFakeMasterAPI(func() apiState { return tc.state })
			defer srv.Close()
			const timeout = 300 * time.Millisecond
			start := time.Now()
			_, err := testAPI(srv.URL).waitReady(context.Background(), db, db, 3, true, timeout, 20*time.Millisecond, nil)
			took := time.Since(start)
			var re *ReadyError
			if !errors.As(err, &re) {
				t.Fatalf("got %v, want a ReadyError", err)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error lacks %q:\n%v", w, err)
				}
			}
			// The promise is to wait out the timeout before giving up; the
			// upper bound only catches a hang, with a margin of 30 s that no
			// slow machine or -race build comes near.
			if took < timeout || took > timeout+30*time.Second {
				t.Errorf("took %s with a timeout of %s", took, timeout)
			}
		})
	}
}

func TestReadyUnreachable(t *testing.T) {
	c := sampleCluster()
	db := c.ByRole(infra.RoleDB)
	// A closed port: connection refused, reported per master.
	_, srv := newFakeMasterAPI(func() apiState { return apiState{} })
	url := srv.URL
	srv.Close()
	_, err := testAPI(url).waitReady(context.Background(), db, db, 3, true, 200*time.Millisecond, 20*time.Millisecond, nil)
	if err == nil || !strings.Contains(err.Error(), "10.0.0.1: dial tcp") || !strings.Contains(err.Error(), "connection refused") {
		t.Errorf("got %v", err)
	}
}

func TestReadyCancelled(t *testing.T) {
	c := sampleCluster()
	db := c.ByRole(infra.RoleDB)
	_, srv := newFakeMasterAPI(func() apiState { return apiState{} })
	defer srv.Close()
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	_, err := testAPI(srv.URL).waitReady(ctx, db, db, 3, true, time.Minute, 10*time.Millisecond, nil)
	var re *ReadyError
	if !errors.Is(err, context.Canceled) || errors.As(err, &re) {
		t.Errorf("got %v, want context.Canceled and no ReadyError", err)
	}
}

func TestDefaultMasterURL(t *testing.T) {
	if got := defaultMasterURL(infra.Host{PublicIP: "203.0.113.1", PrivateIP: "10.0.0.1"}); got != "http://203.0.113.1:7000" {
		t.Errorf("got %s", got)
	}
	if got := defaultMasterURL(infra.Host{PrivateIP: "fd00::1"}); got != "http://[fd00::1]:7000" {
		t.Errorf("got %s", got)
	}
}
