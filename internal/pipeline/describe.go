package pipeline

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/ybbench/ybbench/internal/profiles"
)

// WritePlan says what a run of s would do, without doing it: hosts and
// roles, versions, the commands of each stage, and an expected duration.
func WritePlan(w io.Writer, s *Resolved) error {
	p := s.P
	var b strings.Builder
	fmt.Fprintf(&b, "profile %s (seed %s): %s\n", p.Name, p.Seed, p.Description)
	fmt.Fprintf(&b, "documented hardware: %s %d× %s + %d× %s client(s); %s\n", p.Hardware.Cloud, p.Hardware.DB.Count, p.Hardware.DB.Type, p.Hardware.Client.Count, p.Hardware.Client.Type, p.Hardware.Note)
	if len(s.Overridden) > 0 {
		fmt.Fprintf(&b, "overridden: %s (the report marks them)\n", strings.Join(s.Overridden, ", "))
	}
	b.WriteString("\nhosts:\n")
	switch s.Provider {
	case "local":
		for i := 1; i <= s.DBHosts; i++ {
			fmt.Fprintf(&b, "  db%d      role db      network namespace on this machine, subnet %s\n", i, s.Subnet)
		}
		for i := 1; i <= s.ClientHosts; i++ {
			fmt.Fprintf(&b, "  client%d  role client  network namespace on this machine\n", i)
		}
	case "inventory":
		fmt.Fprintf(&b, "  the hosts of %s (validated at up)\n", s.Inventory)
	}
	fmt.Fprintf(&b, "\nversions: ybbench %s; database %s", Version, s.Flavor)
	if s.Flavor == "yugabyte" {
		fmt.Fprintf(&b, " from %s", s.YBTarball)
	} else {
		b.WriteString(" (the db hosts' PostgreSQL packages)")
	}
	b.WriteString("\n\nstages:\n")
	fmt.Fprintf(&b, "  up         %s\n", map[string]string{"local": "terraform apply of terraform/local (namespaces, bridge, one sshd per host)", "inventory": "validate the inventory"}[s.Provider])
	fmt.Fprintf(&b, "  preflight  on every host over SSH: reachable, disk, ulimits, clock skew ≤ %v\n", s.MaxClockSkew)
	fmt.Fprintf(&b, "  install    %s on the db hosts\n", s.Flavor)
	par := s.Params
	dir := "<client>/agent"
	est := 30 * time.Second
	for _, wl := range s.Workloads {
		for _, ph := range []string{"prepare", "load", "run"} {
			threads := par.Threads
			if ph == "load" {
				threads = par.LoadThreads
			}
			args := agentArgs(p.Binding, Phase{Workload: wl, Phase: ph}, par.Records, par.Operations, threads, par.Duration, par.DDL, 0, max(s.ClientHosts, 1), dir, "<client>", time.Time{})
			line := strings.Join(args, " ")
			if i := strings.Index(line, "ybload.start.at="); i >= 0 {
				line = line[:i] + "ybload.start.at=<start time>"
			}
			fmt.Fprintf(&b, "  bench      ybload %s\n", line)
		}
		est += time.Duration(float64(par.Records)/20000*float64(time.Second)) + runEstimate(p, wl, par)
	}
	b.WriteString("  collect    merge every agent's records (histograms added) into result.json\n")
	b.WriteString("  report     report.md beside the published figures\n")
	b.WriteString("  down       always: destroy the hosts (an inventory's machines are only stopped and wiped)\n")
	fmt.Fprintf(&b, "\nexpected duration: about %v (loads at ~20,000 records/s; runs bounded by %v or the published throughput)\n", est.Round(time.Second), par.Duration)
	fmt.Fprintf(&b, "results: %s\n", filepath.Join(s.RunsDir, "<id>"))
	_, err := io.WriteString(w, b.String())
	return err
}

func runEstimate(p *profiles.Profile, wl string, par profiles.Parameters) time.Duration {
	if row := p.Baseline.Row(wl); row != nil && row.Throughput > 0 {
		d := time.Duration(float64(par.Operations) / row.Throughput * float64(time.Second))
		if par.Duration > 0 && d > par.Duration {
			return par.Duration
		}
		return d
	}
	return par.Duration
}

// WriteStatus prints a run's ledger.
func WriteStatus(w io.Writer, r *Run) error {
	rec := r.Ledger().Record()
	fmt.Fprintf(w, "run %s (%s), state %s, outcome %s, owner %s, orchestrator %s pid %d\n", rec.ID, rec.Spec.Profile, rec.State, rec.Outcome, rec.Owner, rec.Hostname, rec.PID)
	for _, s := range rec.Steps {
		d := ""
		if !s.Ended.IsZero() {
			d = s.Ended.Sub(s.Started).Round(time.Millisecond).String()
		}
		fmt.Fprintf(w, "  %-8s %-28s %8s  %s", s.Status, s.Name, d, s.About)
		if s.Error != "" {
			fmt.Fprintf(w, "  — %s", s.Error)
		}
		fmt.Fprintln(w)
	}
	for _, x := range rec.Remains {
		fmt.Fprintf(w, "  remains: %s\n", x)
	}
	return nil
}

// WriteProfiles lists the built-in profiles and their parameters.
func WriteProfiles(w io.Writer) error {
	all, err := profiles.All()
	if err != nil {
		return err
	}
	for _, p := range all {
		pp := p.Parameters
		fmt.Fprintf(w, "%s  (seed %s)\n  %s\n  hardware: %s %d× %s + %d× %s; database: %s; binding: %s\n  workloads: %s\n  records %d, operations %d, load threads %d, threads %d, duration %v, ddl %s\n",
			p.Name, p.Seed, p.Description, p.Hardware.Cloud, p.Hardware.DB.Count, p.Hardware.DB.Type, p.Hardware.Client.Count, p.Hardware.Client.Type,
			p.Flavor, p.Binding, strings.Join(p.Workloads, ", "), pp.Records, pp.Operations, pp.LoadThreads, pp.Threads, pp.Duration, pp.DDL)
		ok, _ := p.Baseline.Consistent(0.3)
		fmt.Fprintf(w, "  published table: %d rows, %s\n\n", len(p.Baseline.Rows), map[bool]string{true: "self-consistent (may gate)", false: "fails Little's law (shown, never gated)"}[ok])
	}
	return nil
}
