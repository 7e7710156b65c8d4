package collect

import (
	"fmt"
	"io"
	"sort"
	"strings"
)

// WriteMarkdown renders report.md from a result alone: first the caveats
// a reader must not miss (WriteCaveats), then per workload the measured
// table beside the published figures (each published column saying which
// of our statistics it is compared with) and the sanity line.
// Everything it shows is in result.json, so a result renders the same
// report wherever and whenever it is rendered.
func WriteMarkdown(w io.Writer, r *Result) error {
	var s strings.Builder
	fmt.Fprintf(&s, "# ybbench run %s — profile %s\n\n", mdText(r.RunID), mdText(r.Profile))
	s.WriteString(caveatsMarkdown(r) + verdictsMarkdown(r))
	if len(r.Hosts) > 0 {
		var db, cl []string
		for _, h := range r.Hosts {
			desc := mdText(h.Name)
			if h.InstanceType != "" {
				desc += " (" + mdText(h.InstanceType) + ")"
			}
			if len(h.Roles) > 0 && h.Roles[0] == "client" {
				cl = append(cl, desc)
			} else {
				db = append(db, desc)
			}
		}
		fmt.Fprintf(&s, "Cluster: provider %s; db hosts %s; clients %s.\n", mdText(r.Environment.Provider), strings.Join(db, ", "), strings.Join(cl, ", "))
	}
	if d := r.Database; d != nil {
		if d.Product != "" {
			fmt.Fprintf(&s, "Database: %s %s (flavor %s).\n", mdText(d.Product), mdText(d.Version), mdText(d.Flavor))
		} else {
			fmt.Fprintf(&s, "Database: %s %s.\n", mdText(d.Flavor), mdText(d.Version))
		}
	}
	fmt.Fprintf(&s, "Safety: database authentication %s (db_auth); unknown SSH host keys %s (accept_new_host_keys).\n",
		mdText(r.Environment.DBAuth), map[bool]string{true: "accepted on first use", false: "refused"}[r.Environment.AcceptNewHostKeys])
	s.WriteString("\n")
	s.WriteString(parametersLine(r))
	s.WriteString(tablesLine(r))
	for _, n := range r.Notes {
		fmt.Fprintf(&s, "> %s\n", mdText(n))
	}
	if len(r.Notes) > 0 {
		s.WriteString("\n")
	}
	if b := r.Baseline; b != nil {
		fmt.Fprintf(&s, "Published figures: %s — %s.", mdText(b.Source), mdText(b.Setup))
		if !b.Consistent {
			fmt.Fprintf(&s, " This table does not satisfy Little's law (%s): it is shown, never used as a gate.", mdText(strings.Join(b.Inconsistencies, "; ")))
		}
		s.WriteString("\n\n")
	}
	sameDDL := commonDDL(r) != ""
	for _, wr := range r.Workloads {
		fmt.Fprintf(&s, "## %s\n\n", mdText(wr.Name))
		if wr.DDL != "" && !sameDDL {
			fmt.Fprintf(&s, "Table as created: %s\n\n", mdCode(oneLine(wr.DDL)))
		}
		s.WriteString(spreadLines(&wr) + sweepMarkdown(&wr))
		for _, p := range wr.Phases {
			fmt.Fprintf(&s, "**%s** — %d agent(s), %d threads, %d operations, %.0f ops/s over %.1f s", mdText(p.Phase), len(p.Agents), p.Threads, p.Ops, p.Throughput, float64(p.WindowMS)/1000)
			if !p.Complete {
				s.WriteString(" (**incomplete**)")
			}
			s.WriteString("\n\n| measurement | count | errors | mean ms | p50 ms | p95 ms | p99 ms | p99.9 ms | max ms |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|\n")
			for _, m := range p.Measurements {
				l := m.Latency
				fmt.Fprintf(&s, "| %s | %d | %d | %s | %s | %s | %s | %s | %s |\n", mdText(m.Name), m.Count, m.Errors,
					ms(l.Mean), msi(l.P50), msi(l.P95), msi(l.P99), msi(l.P999), msi(l.Max))
			}
			for _, pr := range p.Problems {
				fmt.Fprintf(&s, "\n- %s", mdText(pr))
			}
			s.WriteString("\n")
		}
		if len(wr.Comparisons) > 0 {
			s.WriteString("Beside the published figures:\n\n| published column | compared with our | published | measured | measured ÷ published |\n|---|---|---:|---:|---:|\n")
			for _, c := range wr.Comparisons {
				fmt.Fprintf(&s, "| %s | %s | %s %s | %s %s | %.2f |\n", mdText(c.Column), mdText(c.Statistic), num(c.Published), mdText(c.Unit), num(c.Measured), mdText(c.Unit), c.Ratio)
			}
			s.WriteString("\n")
		}
		if len(wr.CPU) > 0 {
			hosts := make([]string, 0, len(wr.CPU))
			for h := range wr.CPU {
				hosts = append(hosts, h)
			}
			sort.Strings(hosts)
			s.WriteString("Node CPU (user+sys) over the measured phase:")
			for _, h := range hosts {
				fmt.Fprintf(&s, " %s %.1f%%", mdText(h), wr.CPU[h].Percent)
			}
			fmt.Fprintf(&s, " — %s.\n", mdText(wr.CPU[hosts[0]].Source))
		}
		if wr.SanityText != "" {
			s.WriteString(sanityLine(&wr))
		}
		if l := wr.PublishedLittlesLaw; l != nil {
			fmt.Fprintf(&s, "The published row itself: %d threads ÷ (throughput × mean latency) = %.2f, %s.\n", l.Threads, l.Value, verdict(l.Value, l.Tolerance, l.Within))
		}
		for _, pr := range wr.Problems {
			fmt.Fprintf(&s, "- %s\n", mdText(pr))
		}
		s.WriteString("\n")
	}
	_, err := io.WriteString(w, s.String())
	return err
}

func ms(us float64) string { return fmt.Sprintf("%.3f", us/1000) }
func msi(us int64) string  { return fmt.Sprintf("%.3f", float64(us)/1000) }

func num(v float64) string {
	if v >= 100 {
		return fmt.Sprintf("%.0f", v)
	}
	return fmt.Sprintf("%.3g", v)
}
