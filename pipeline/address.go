package pipeline

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/netip"
	"strings"
	"time"
)

// The operator's public address: the default of ssh_cidr, the only source
// a cloud run's hosts accept SSH from. It is looked up once, when a run is
// created (never for plan, which works offline), and recorded in the
// run's spec with where it came from, so that a resumed run opens SSH to
// the same address.

// defaultLookupURL answers a GET with the caller's public IPv4 address.
const defaultLookupURL = "https://checkip.amazonaws.com"

// lookupTimeout bounds the lookup: a service that does not answer soon is
// not going to, and the user is told how to give the address instead.
const lookupTimeout = 10 * time.Second

// PlanAddress stands, in a plan, for the address a run would look up.
const PlanAddress = "<your public address>/32"

// lookupSSHCIDR sets ssh_cidr to this machine's public address as a /32,
// looked up at the lookup URL with client (nil: one of its own), and
// records where it came from. A lookup that fails says how to give the
// address instead.
func (s *Spec) lookupSSHCIDR(ctx context.Context, client *http.Client) error {
	u := s.SSHCIDRLookupURL
	if u == "" {
		u = defaultLookupURL
	}
	if client == nil {
		client = &http.Client{Timeout: lookupTimeout}
	}
	a, err := lookupAddress(ctx, client, u)
	if err != nil {
		return fmt.Errorf("%s: not given, and this machine's public address could not be looked up at %s: %v; "+
			"give the addresses SSH may come from instead (--ssh-cidr 203.0.113.7/32, %s, or ssh_cidr in the spec file)",
			sshCIDRSetting, u, err, EnvName(sshCIDRSetting))
	}
	s.SSHCIDR = netip.PrefixFrom(a, 32).String()
	s.SSHCIDRSource = fmt.Sprintf("this machine's public address, looked up at %s at %s", u, time.Now().UTC().Format(time.RFC3339))
	s.setFrom(sshCIDRSetting, fmt.Sprintf("%s (looked up at %s)", sshCIDRSetting, u))
	return nil
}

// lookupAddress GETs url and reads its answer: one IPv4 address that
// hosts on the internet could see (not loopback, link-local, multicast or
// unspecified), alone but for white space.
func lookupAddress(ctx context.Context, client *http.Client, url string) (netip.Addr, error) {
	ctx, cancel := context.WithTimeout(ctx, lookupTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return netip.Addr{}, err
	}
	resp, err := client.Do(req)
	if err != nil {
		return netip.Addr{}, err
	}
	defer resp.Body.Close()
	// The URL is checked to be https, but a redirect may lead elsewhere:
	// an answer that travelled in clear decides nothing.
	if resp.Request != nil && resp.Request.URL.Scheme != "https" {
		return netip.Addr{}, fmt.Errorf("it redirects to %s, which is not https", resp.Request.URL.Redacted())
	}
	if resp.StatusCode != http.StatusOK {
		return netip.Addr{}, fmt.Errorf("the server answers %s", resp.Status)
	}
	// An address is at most 15 characters; a longer answer is not one.
	b, err := io.ReadAll(io.LimitReader(resp.Body, 64))
	if err != nil {
		return netip.Addr{}, fmt.Errorf("reading the answer: %w", err)
	}
	text := strings.TrimSpace(string(b))
	a, err := netip.ParseAddr(text)
	if err != nil || !a.Is4() {
		return netip.Addr{}, fmt.Errorf("the answer %q is not an IPv4 address", shorten(text, 40))
	}
	if !a.IsGlobalUnicast() {
		return netip.Addr{}, fmt.Errorf("the answer %s is no address the internet sees this machine by", a)
	}
	return a, nil
}

// shorten cuts s to n bytes, marking the cut.
func shorten(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
