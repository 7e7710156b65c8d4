package yugabyte

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"time"

	"github.com/ybbench/ybbench/infra"
)

// The readiness check follows specs/yugabyte-deploy.md §9.4 over the
// master's HTTP API (§9.3, D12):
//
//  1. /api/v1/is-leader on every master: exactly one answers 200;
//  2. the leader's /api/v1/masters lists RF masters without an error;
//  3. the leader's /api/v1/tablet-servers lists every expected tserver as
//     ALIVE (keyed by the tserver's HTTP address, so matched by IP);
//  4. the leader's /api/v1/health-check has no dead nodes and no
//     under-replicated tablets.
//
// Steps 2–4 are skipped while only the leader is awaited (after the
// masters start, before the tservers do). The client probes of §9.4 step 5
// (ysqlsh, ycqlsh) are not made.

// HostDialer is a runner that opens TCP connections from a host itself:
// the SSH runner does, through the host's SSH connection (direct-tcpip).
// Cloud firewalls close the masters' HTTP port to the operator and open
// it inside the network, so the check asks each master from that master
// whenever Install's runner can.
type HostDialer interface {
	Dial(ctx context.Context, h infra.Host, network, addr string) (net.Conn, error)
}

// apiClient reaches the masters' HTTP API: directly, or from each master
// host through dial when it is set.
type apiClient struct {
	http *http.Client
	base func(h infra.Host) string
	dial func(ctx context.Context, h infra.Host, network, addr string) (net.Conn, error)
}

// client is the HTTP client that reaches master h.
func (c apiClient) client(h infra.Host) *http.Client {
	if c.dial == nil {
		return c.http
	}
	return &http.Client{
		Timeout: c.http.Timeout,
		Transport: &http.Transport{
			// No proxy: the connection starts on the host.
			DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
				return c.dial(ctx, h, network, addr)
			},
			// One request per tunnel: nothing is left open between polls.
			DisableKeepAlives: true,
		},
	}
}

// get fetches one path from one master; a non-2xx status is not an error.
func (c apiClient) get(ctx context.Context, h infra.Host, p string) (int, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimSuffix(c.base(h), "/")+p, nil)
	if err != nil {
		return 0, nil, err
	}
	resp, err := c.client(h).Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 8<<20))
	return resp.StatusCode, body, err
}

// tsState is one tserver as the leader master sees it.
type tsState struct {
	Addr   string  // HTTP host:port, as the API keys it
	Status string  // ALIVE or DEAD
	HBSec  float64 // seconds since its last heartbeat
}

// observation is what one poll saw.
type observation struct {
	// leaders are the masters that answered is-leader with 200; others
	// says what the rest answered.
	leaders []infra.Host
	others  []string
	// mastersOK counts masters listed without an error; masterErrs are
	// the errors listed.
	mastersOK  int
	masterErrs []string
	// tservers by IP.
	tservers map[string]tsState
	dead     []string
	underRep int
	// fetchErr is the first failure to read or decode a leader endpoint.
	fetchErr string
	version  string
}

// observe polls the API once. It never fails: what went wrong is part of
// the observation.
func (c apiClient) observe(ctx context.Context, masters []infra.Host, full bool) observation {
	var o observation
	for _, m := range masters {
		code, _, err := c.get(ctx, m, "/api/v1/is-leader")
		switch {
		case err != nil:
			o.others = append(o.others, fmt.Sprintf("%s: %s", m.PrivateIP, shortErr(err)))
		case code == http.StatusOK:
			o.leaders = append(o.leaders, m)
		default:
			o.others = append(o.others, fmt.Sprintf("%s: HTTP %d", m.PrivateIP, code))
		}
	}
	if !full || len(o.leaders) != 1 {
		return o
	}
	leader := o.leaders[0]
	fetch := func(p string, v any) bool {
		code, body, err := c.get(ctx, leader, p)
		switch {
		case err != nil:
			o.fetchErr = fmt.Sprintf("leader %s %s: %s", leader.PrivateIP, p, shortErr(err))
		case code != http.StatusOK:
			o.fetchErr = fmt.Sprintf("leader %s %s: HTTP %d", leader.PrivateIP, p, code)
		default:
			if err := json.Unmarshal(body, v); err != nil {
				o.fetchErr = fmt.Sprintf("leader %s %s: not the JSON expected (%s): %.80q", leader.PrivateIP, p, shortErr(err), body)
				return false
			}
			return true
		}
		return false
	}

	var ms struct {
		Masters []struct {
			Error json.RawMessage `json:"error"`
		} `json:"masters"`
	}
	if !fetch("/api/v1/masters", &ms) {
		return o
	}
	for _, m := range ms.Masters {
		if len(m.Error) > 0 && string(m.Error) != "null" {
			o.masterErrs = append(o.masterErrs, string(m.Error))
			continue
		}
		o.mastersOK++
	}

	// {"<placement uuid>": {"<host>:<http port>": {"status": …}, …}, …},
	// possibly with an "error" string beside the placements.
	var tsRaw map[string]json.RawMessage
	if !fetch("/api/v1/tablet-servers", &tsRaw) {
		return o
	}
	o.tservers = map[string]tsState{}
	for _, raw := range tsRaw {
		var servers map[string]struct {
			Status string  `json:"status"`
			HBSec  float64 `json:"time_since_hb_sec"`
		}
		if json.Unmarshal(raw, &servers) != nil {
			continue
		}
		for addr, s := range servers {
			host := addr
			if h, _, err := net.SplitHostPort(addr); err == nil {
				host = h
			}
			o.tservers[host] = tsState{Addr: addr, Status: s.Status, HBSec: s.HBSec}
		}
	}

	var hc struct {
		Dead  []string          `json:"dead_nodes"`
		Under []json.RawMessage `json:"under_replicated_tablets"`
	}
	if !fetch("/api/v1/health-check", &hc) {
		return o
	}
	o.dead, o.underRep = hc.Dead, len(hc.Under)

	if code, body, err := c.get(ctx, leader, "/api/v1/version"); err == nil && code == http.StatusOK {
		o.version = strings.TrimSpace(string(body))
		if len(o.version) > 512 {
			o.version = o.version[:512]
		}
	}
	return o
}

// problem says why the observation is not ready yet ("" when it is):
// full=false asks only for a leader.
func (o observation) problem(rf int, tservers []infra.Host, full bool) string {
	switch {
	case len(o.leaders) == 0:
		return "no master leader elected yet (is-leader: " + strings.Join(o.others, "; ") + ")"
	case len(o.leaders) > 1:
		ips := make([]string, len(o.leaders))
		for i, l := range o.leaders {
			ips[i] = l.PrivateIP
		}
		return "more than one master says it is the leader: " + strings.Join(ips, ", ")
	case !full:
		return ""
	case o.fetchErr != "":
		return o.fetchErr
	case o.mastersOK < rf:
		p := fmt.Sprintf("%d of %d masters listed by the leader", o.mastersOK, rf)
		if len(o.masterErrs) > 0 {
			p += " (errors: " + strings.Join(o.masterErrs, "; ") + ")"
		}
		return p
	}
	var bad []string
	for _, h := range tservers {
		s, ok := o.tservers[h.PrivateIP]
		switch {
		case !ok:
			bad = append(bad, fmt.Sprintf("tserver %s (%s) is not registered with the master", h.PrivateIP, h.Name))
		case s.Status != "ALIVE":
			bad = append(bad, fmt.Sprintf("tserver %s (%s) is %s (last heartbeat %.1f s ago)", s.Addr, h.Name, orDefault(s.Status, "without status"), s.HBSec))
		}
	}
	if len(bad) > 0 {
		return strings.Join(bad, "; ")
	}
	if len(o.dead) > 0 {
		return "health-check lists dead nodes: " + strings.Join(o.dead, ", ")
	}
	if o.underRep > 0 {
		return fmt.Sprintf("health-check lists %d under-replicated tablets", o.underRep)
	}
	return ""
}

// summary is what the observation saw, for logs and error messages.
func (o observation) summary() string {
	var parts []string
	switch len(o.leaders) {
	case 0:
		parts = append(parts, "no leader")
	case 1:
		parts = append(parts, "leader "+o.leaders[0].PrivateIP)
	default:
		parts = append(parts, fmt.Sprintf("%d leaders", len(o.leaders)))
	}
	if o.tservers != nil {
		parts = append(parts, fmt.Sprintf("masters listed %d", o.mastersOK))
		ips := make([]string, 0, len(o.tservers))
		for ip := range o.tservers {
			ips = append(ips, ip)
		}
		sort.Strings(ips)
		var ts []string
		for _, ip := range ips {
			ts = append(ts, o.tservers[ip].Addr+"="+o.tservers[ip].Status)
		}
		parts = append(parts, "tservers ["+strings.Join(ts, " ")+"]")
		parts = append(parts, fmt.Sprintf("dead nodes %d, under-replicated tablets %d", len(o.dead), o.underRep))
	}
	return strings.Join(parts, "; ")
}

// ReadyError is a readiness check that did not pass in time.
type ReadyError struct {
	Waited time.Duration
	// Stage is "leader" (after the masters started) or "cluster" (after
	// the tservers started).
	Stage string
	// Problem is what was still wrong at the last poll, Seen what that
	// poll saw, and Hosts what the hosts said of their servers (when it
	// could be asked).
	Problem, Seen, Hosts string
}

// Error says what was wrong, what was seen, and what the hosts said.
func (e *ReadyError) Error() string {
	msg := fmt.Sprintf("yugabyte not ready (%s) after %s: %s; last seen: %s", e.Stage, e.Waited.Round(time.Millisecond), e.Problem, e.Seen)
	if e.Hosts != "" {
		msg += "; on the hosts: " + e.Hosts
	}
	return msg
}

// waitReady polls until the observation has no problem, at most timeout.
func (c apiClient) waitReady(ctx context.Context, masters, tservers []infra.Host, rf int, full bool, timeout, interval time.Duration, progress func(string)) (observation, error) {
	start := time.Now()
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	tick := time.NewTicker(interval)
	defer tick.Stop()
	stage := "leader"
	if full {
		stage = "cluster"
	}
	var last observation
	lastProblem := ""
	for {
		o := c.observe(ctx, masters, full)
		p := o.problem(rf, tservers, full)
		if p == "" {
			return o, nil
		}
		// An observation cut short by the deadline says less than the one
		// before it: the last complete one is what a timeout reports.
		if ctx.Err() == nil || lastProblem == "" {
			if p != lastProblem && progress != nil {
				progress(p)
			}
			last, lastProblem = o, p
		}
		select {
		case <-ctx.Done():
			if err := context.Cause(ctx); !errors.Is(err, context.DeadlineExceeded) {
				return last, fmt.Errorf("waiting for yugabyte (%s): %w", stage, err)
			}
			return last, &ReadyError{Waited: time.Since(start), Stage: stage, Problem: lastProblem, Seen: last.summary()}
		case <-tick.C:
		}
	}
}

// shortErr drops the method and URL that net/http puts around an error.
func shortErr(err error) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err.Error()
	}
	return err.Error()
}
