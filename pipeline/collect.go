package pipeline

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strconv"
	"strings"

	"github.com/ybbench/ybbench/collect"
	"github.com/ybbench/ybbench/collect/bottleneck"
	"github.com/ybbench/ybbench/collect/report"
	"github.com/ybbench/ybbench/collect/verdict"
	"github.com/ybbench/ybbench/internal/exitcode"
	"github.com/ybbench/ybbench/profiles"
)

// Version is ybbench's version, set by cmd/ybbench.
var Version = "dev"

// Collect merges every agent's records per workload and phase (adding
// histograms, never averaging percentiles) into result.json, takes what
// the report draws of them into series.json in the same reading, and
// writes each agent's records of a phase as an HdrHistogram interval log
// under hdr/. All are functions of the run directory alone: the run
// first writes there what it was asked to measure (setup.json), then
// collect.AggregateSeries and collect.WriteHDRLogs read nothing else, so
// `ybbench collect` makes them again from a finished run.
func (r *Run) Collect(ctx context.Context) error {
	return r.step("collect", "merge the agents' records into result.json; the report's series into series.json, HDR interval logs under hdr/", nil, func() (map[string]string, error) {
		// A series.json that cannot be written costs the report its
		// speed, not the result: the report draws from the records then.
		series, serr := collect.CreateSeries(r.dir)
		if serr != nil {
			serr = exitcode.Wrap(exitcode.Tool, fmt.Errorf("series: %w", serr))
		}
		res, err := r.collect(series)
		if res == nil {
			if series != nil {
				series.Abort()
			}
			return nil, errors.Join(err, serr)
		}
		if werr := collect.WriteResult(filepath.Join(r.dir, ResultFile), res); werr != nil {
			if series != nil {
				series.Abort()
			}
			return nil, errors.Join(err, exitcode.Wrap(exitcode.Tool, werr))
		}
		// series.json is put in place after result.json, which it never
		// goes without; the logs come after it too: a record file they
		// cannot read was already reported by Aggregate, and no log lacks
		// a result.
		if series != nil {
			if cerr := series.Commit(); cerr != nil {
				serr = exitcode.Wrap(exitcode.Tool, cerr)
			}
		}
		logs, lerr := collect.WriteHDRLogs(r.dir)
		details := map[string]string{"hdr_logs": strconv.Itoa(len(logs))}
		if lerr != nil {
			lerr = exitcode.Wrap(exitcode.Tool, fmt.Errorf("hdr interval logs: %w", lerr))
		}
		return details, errors.Join(err, serr, lerr)
	})
}

// collect writes setup.json and merges the run's records into its
// result, and the report's series into series (nil: none).
func (r *Run) collect(series *collect.SeriesWriter) (*collect.Result, error) {
	setup, err := r.setup()
	if err != nil {
		return nil, err
	}
	if err := collect.WriteSetup(filepath.Join(r.dir, collect.SetupFile), setup); err != nil {
		return nil, exitcode.Wrap(exitcode.Tool, err)
	}
	res, err := collect.AggregateSeries(r.dir, series)
	if res == nil {
		return nil, exitcode.Wrap(exitcode.Tool, err)
	}
	return res, exitcode.Wrap(exitcode.Workload, err)
}

// setup is setup.json of the run: its profile (with the published table),
// publishedHardware is what of a profile's hardware the reproduction
// verdict compares a run's hosts with.
func publishedHardware(p *profiles.Profile) *collect.PublishedHardware {
	hw := &collect.PublishedHardware{DBHosts: p.Hardware.DB.Count, ClientHosts: p.Hardware.Client.Count,
		Types: map[string]string{}, ClientTypes: map[string]string{}, Note: p.Hardware.Note}
	for cloud, c := range p.Hardware.Clouds {
		hw.Types[cloud], hw.ClientTypes[cloud] = c.Type, c.ClientType
	}
	return hw
}

// workloads and phases, parameters and safety settings, from run.json's
// spec.
func (r *Run) setup() (*collect.Setup, error) {
	p := r.profile()
	fam, err := familyOf(p.Family)
	if err != nil {
		return nil, exitcode.Wrap(exitcode.Config, err)
	}
	s := &collect.Setup{Schema: collect.SetupSchema, RunID: r.ID(), Created: r.ledger.Record().Created,
		Profile: p.Name, Family: p.Family, Binding: p.Binding,
		Parameters: parametersOf(p.Family, r.spec.Params, r.spec), Overridden: r.spec.Overridden,
		Baseline: &p.Baseline, Notes: p.Notes, Provider: r.spec.Provider, DBHosts: r.spec.DBHosts, ClientHosts: r.spec.ClientHosts,
		AcceptNewHostKeys: r.spec.AcceptNewHostKeys, DBAuth: r.spec.DBAuth,
		Versions:        map[string]string{"ybbench": Version, "go": runtime.Version()},
		DatabaseProduct: productOf(r.deployedFlavor()), PublishedProduct: productOf(p.Flavor), CPUs: runtime.NumCPU()}
	if r.spec.Repeat > 1 {
		s.Repetitions = r.spec.Repeat
	}
	if rules, err := bottleneck.Parse(r.spec.LimitRules); err == nil {
		s.LimitRules = &rules
	} else {
		return nil, exitcode.Wrap(exitcode.Config, err)
	}
	s.PublishedHardware = publishedHardware(p)
	s.Build = r.spec.build()
	// The command that created the run resolved which settings the user
	// overrode and which a default chose; run.json's resolved spec can no
	// longer tell (a run made before invocations.json keeps its guess).
	doc, found, err := readInvocations(r.dir)
	if err != nil {
		return nil, exitcode.Wrap(exitcode.Tool, err)
	}
	if found {
		s.Overridden, s.OverriddenBy, s.Chosen = doc.Overridden, doc.OverriddenBy, doc.Chosen
		// Only the command that created the run: the later ones (this
		// collect among them) stay in invocations.json, so that collecting
		// again gives the same result.json.
		if len(doc.Invocations) > 0 {
			s.Invocations = doc.Invocations[:1]
		}
	}
	for _, w := range r.spec.Workloads {
		sw := collect.SetupWorkload{Name: w}
		for _, ph := range fam.phases(w) {
			sw.Phases = append(sw.Phases, collect.SetupPhase{Name: ph, Records: recordsOf(Phase{Workload: w, Phase: ph})})
		}
		s.Workloads = append(s.Workloads, sw)
	}
	return s, nil
}

// deployedFlavor is the flavor that installed the database, as its
// deployment says (the spec's when nothing was installed).
func (r *Run) deployedFlavor() string {
	if r.dep != nil && r.dep.Flavor != "" {
		return r.dep.Flavor
	}
	return r.spec.Flavor
}

// productOf is a flavor's database as a reader knows it ("" when the
// registry does not know the flavor).
func productOf(flavor string) string {
	f, _ := builtin.Flavor(flavor)
	return f.Product
}

// parametersOf lists the parameters that shape a family's numbers.
func parametersOf(family string, p profiles.Parameters, s *Resolved) map[string]string {
	m := map[string]string{"workloads": strings.Join(s.Workloads, ","), "flavor": s.Flavor, "client_hosts": strconv.Itoa(s.ClientHosts)}
	// Only a repeated run names its repetitions: a run of one keeps the
	// parameters runs had before the setting, so their results still
	// match as history.
	if s.Repeat > 1 {
		m["repeat"] = strconv.Itoa(s.Repeat)
	}
	// Every parameter the family's agents read, as its setting names it.
	for _, st := range ParameterSettings() {
		if slices.Contains(st.Families, family) {
			m[st.Name] = fmt.Sprint(reflect.ValueOf(st.param(&p)).Elem().Interface())
		}
	}
	switch family {
	case "ycsb":
		m["ddl"] = p.DDL
	case "sysbench":
		m["records"] += " per table"
		m["tables"] = strconv.Itoa(p.Tables)
	}
	return m
}

// Report renders report.md, then report.html and its CSV, from the run
// directory (result.json, verdict.json when the run was gated, the
// agents' records and the CPU files). A run without results is refused
// before the step begins (exit 2), naming the stage that makes them.
func (r *Run) Report(ctx context.Context) error {
	if err := r.needResults(); err != nil {
		return err
	}
	return r.step("report", "render report.md and report.html beside the published figures", nil, func() (map[string]string, error) {
		path, err := RenderReport(r.dir)
		if path == "" {
			return nil, exitcode.Wrap(exitcode.Tool, err)
		}
		details := map[string]string{"report": path}
		if err == nil {
			details["html"] = filepath.Join(r.dir, report.HTMLFile)
		}
		r.noteVerdicts()
		return details, exitcode.Wrap(exitcode.Tool, err)
	})
}

// noteVerdicts says, in the progress, what the reports open with: whether
// the published rows were reproduced, and what limited each workload.
func (r *Run) noteVerdicts() {
	raw, err := os.ReadFile(filepath.Join(r.dir, ResultFile))
	if err != nil {
		return
	}
	res, err := collect.ReadResult(raw)
	if err != nil {
		return
	}
	if res.Reproduction != nil {
		r.progress().Note("reproduced? " + res.Reproduction.Summary)
	}
	lines, _ := collect.LimitLines(res)
	for _, l := range lines {
		r.progress().Note(l.Workload + ": " + l.Summary)
	}
}

// RenderReport writes a run directory's report.md from its result.json
// alone, then report.html and its CSV (report.Write), and returns
// report.md's path. report.md is written first and kept when the HTML
// page cannot be: that failure is returned with the path.
func RenderReport(dir string) (string, error) {
	raw, err := os.ReadFile(filepath.Join(dir, ResultFile))
	if err != nil {
		return "", err
	}
	res, err := collect.ReadResult(raw)
	if err != nil {
		// A result of an earlier schema is collected again from the run
		// directory, which holds everything it was made from.
		return "", fmt.Errorf("%w (ybbench collect --run %s writes it again)", err, dir)
	}
	var b bytes.Buffer
	if err := collect.WriteMarkdown(&b, res); err != nil {
		return "", err
	}
	md := b.Bytes()
	// A verdict that cannot be read costs the report its section, not the
	// report: the error says so.
	v, verr := readVerdict(dir)
	if verr != nil {
		verr = fmt.Errorf("report.md without the verdict: %w", verr)
	}
	if v != nil {
		var vb bytes.Buffer
		if err := verdict.Markdown(&vb, v); err != nil {
			return "", err
		}
		md = afterTitle(md, vb.Bytes())
	}
	path := filepath.Join(dir, ReportFile)
	if err := os.WriteFile(path, md, 0o644); err != nil {
		return "", err
	}
	if _, err := report.Write(dir); err != nil {
		return path, errors.Join(verr, fmt.Errorf("report.html (report.md was written): %w", err))
	}
	return path, verr
}

// readVerdict is the run's verdict.json, nil when the run was not gated.
func readVerdict(dir string) (*verdict.Verdict, error) {
	b, err := os.ReadFile(filepath.Join(dir, verdict.VerdictFile))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if err := verdict.Validate(b); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, verdict.VerdictFile), err)
	}
	var v verdict.Verdict
	if err := json.Unmarshal(b, &v); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, verdict.VerdictFile), err)
	}
	return &v, nil
}

// afterTitle puts a section right after a Markdown document's title line,
// so that a reader meets the verdict first.
func afterTitle(doc, section []byte) []byte {
	i := bytes.Index(doc, []byte("\n\n"))
	if i < 0 {
		return append(append(doc, '\n'), section...)
	}
	out := append([]byte{}, doc[:i+2]...)
	out = append(out, section...)
	return append(out, doc[i+2:]...)
}
