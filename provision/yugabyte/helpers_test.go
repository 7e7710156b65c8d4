package yugabyte

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"

	"github.com/ybbench/ybbench/infra"
)

// sampleCluster is a cluster as a cloud provider would describe it: three
// db hosts in one zone (the first with two data disks), one client.
func sampleCluster() *infra.Cluster {
	db := func(name, ip string, dirs ...string) infra.Host {
		return infra.Host{
			Name: name, Roles: []infra.Role{infra.RoleDB},
			PublicIP: "203.0.113." + ip[len("10.0.0."):], PrivateIP: ip,
			Cloud: "aws", Region: "us-west-2", Zone: "us-west-2a",
			Base: "/var/lib/ybbench/" + name, DataDirs: dirs, ServiceUser: "yugabyte",
		}
	}
	return &infra.Cluster{
		Name: "r1", Provider: "aws",
		Hosts: []infra.Host{
			db("db1", "10.0.0.1", "/mnt/d0", "/mnt/d1"),
			db("db2", "10.0.0.2"),
			db("db3", "10.0.0.3"),
			{Name: "client1", Roles: []infra.Role{infra.RoleClient}, PrivateIP: "10.0.0.9", Base: "/var/lib/ybbench/client1", ServiceUser: "ybbench"},
		},
	}
}

// sampleTopology is the topology of sampleCluster with RF 3 and settings.
func sampleTopology(settings flagSettings) topology {
	c := sampleCluster()
	db := c.ByRole(infra.RoleDB)
	if settings.master == nil {
		settings = flagSettings{master: map[string]string{}, tserver: map[string]string{}}
	}
	return topology{masters: db[:3], rf: 3, settings: settings, auth: true}
}

// apiState is what a fake master API answers at one moment.
type apiState struct {
	// Leader is the name of the host whose master answers is-leader
	// with 200 ("" for none); Leaders, when set, are several.
	Leader  string
	Leaders []string
	// Masters are the RPC addresses the leader lists; MasterErrors are
	// listed with an error.
	Masters      []string
	MasterErrors []string
	// TServers are HTTP host:port → status (ALIVE, DEAD).
	TServers map[string]string
	Dead     []string
	Under    int
	// Garbage makes the leader's tablet-servers answer not JSON.
	Garbage bool
}

// fakeMasterAPI answers the master endpoints the readiness check reads
// (specs/yugabyte-deploy.md §9.3), under /<host name>/ for each master, in
// the shapes of the master's JSON handlers (D12).
type fakeMasterAPI struct {
	mu    sync.Mutex
	state func() apiState
	polls map[string]int // path → count
}

func newFakeMasterAPI(state func() apiState) (*fakeMasterAPI, *httptest.Server) {
	f := &fakeMasterAPI{state: state, polls: map[string]int{}}
	return f, httptest.NewServer(f)
}

func (f *fakeMasterAPI) count(p string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.polls[p]
}

func (f *fakeMasterAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	parts := strings.SplitN(strings.TrimPrefix(r.URL.Path, "/"), "/", 2)
	if len(parts) != 2 {
		http.NotFound(w, r)
		return
	}
	host, p := parts[0], "/"+parts[1]
	f.mu.Lock()
	f.polls[p]++
	f.mu.Unlock()
	st := f.state()
	leaders := st.Leaders
	if st.Leader != "" {
		leaders = append(leaders, st.Leader)
	}
	isLeader := slices.Contains(leaders, host)
	if p == "/api/v1/is-leader" {
		if isLeader {
			fmt.Fprint(w, `{"STATUS":"OK"}`)
		} else {
			w.WriteHeader(http.StatusServiceUnavailable)
		}
		return
	}
	if !isLeader {
		// A follower's answer to a leader-only endpoint is not the
		// leader's JSON; the check never asks a follower.
		fmt.Fprint(w, "<h1>not the leader</h1>")
		return
	}
	w.Header().Set("Content-Type", "application/json")
	switch p {
	case "/api/v1/masters":
		var ms []map[string]any
		for i, a := range st.Masters {
			h, port, _ := net.SplitHostPort(a)
			ms = append(ms, map[string]any{
				"instance_id":  map[string]any{"permanent_uuid": fmt.Sprintf("m%d", i), "instance_seqno": 1},
				"registration": map[string]any{"private_rpc_addresses": []map[string]any{{"host": h, "port": port}}},
				"role":         "FOLLOWER",
			})
		}
		for _, e := range st.MasterErrors {
			ms = append(ms, map[string]any{"error": map[string]any{"code": "NETWORK_ERROR", "message": e}})
		}
		json.NewEncoder(w).Encode(map[string]any{"masters": ms})
	case "/api/v1/tablet-servers":
		if st.Garbage {
			fmt.Fprint(w, "<html>oops</html>")
			return
		}
		servers := map[string]any{}
		for addr, status := range st.TServers {
			hb := 0.4
			if status != "ALIVE" {
				hb = 61.5
			}
			servers[addr] = map[string]any{"time_since_hb": fmt.Sprintf("%.1fs", hb), "time_since_hb_sec": hb, "status": status, "uptime_seconds": 10}
		}
		json.NewEncoder(w).Encode(map[string]any{"": servers})
	case "/api/v1/health-check":
		under := make([]string, st.Under)
		for i := range under {
			under[i] = fmt.Sprintf("tablet%d", i)
		}
		dead := st.Dead
		if dead == nil {
			dead = []string{}
		}
		json.NewEncoder(w).Encode(map[string]any{"dead_nodes": dead, "most_recent_uptime": 10, "under_replicated_tablets": under})
	case "/api/v1/version":
		fmt.Fprint(w, `{"version_number":"2.20.0.0","build_number":"standin","build_type":"RELEASE"}`)
	default:
		http.NotFound(w, r)
	}
}

// healthyState is a whole cluster of the sample cluster's hosts.
func healthyState(c *infra.Cluster) apiState {
	st := apiState{Leader: c.ByRole(infra.RoleDB)[0].Name, TServers: map[string]string{}}
	for i, h := range c.ByRole(infra.RoleDB) {
		if i < 3 {
			st.Masters = append(st.Masters, net.JoinHostPort(h.PrivateIP, "7100"))
		}
		st.TServers[net.JoinHostPort(h.PrivateIP, "9000")] = "ALIVE"
	}
	return st
}
