package collect

// How a workload's figures are read from its agents' files: each
// repetition's phases merged, and the workload's own figures those of its
// only repetition or of its median one.

import (
	"fmt"

	"github.com/ybbench/ybbench/profiles"
	"github.com/ybbench/ybbench/record/hostcpu"
	"github.com/ybbench/ybbench/record/repetition"
)

// workloadRead is one workload as its files say it: its result, how many
// of its phases have records, and what could not be read.
type workloadRead struct {
	result   WorkloadResult
	measured int
	errs     []error
	// files are the record files of the phases that have them, for the
	// note on how the load was spread.
	files []workloadFiles
}

// runRead is what the reading of every workload of a run shares: the run
// directory, the family's figures, the versions the agents recorded (the
// ybload and driver versions go there), what the limit attribution
// reads, and where each phase's series go (nil: nowhere, and none is
// made).
type runRead struct {
	dir      string
	fig      figures
	versions map[string]string
	lc       limitContext
	series   *SeriesWriter
}

// measureWorkload reads workload w of a run of the given repetitions (0
// or 1: none), with its published row of baseline.
func (rr *runRead) measureWorkload(w SetupWorkload, repetitions int, baseline *BaselineResult) workloadRead {
	out := workloadRead{result: WorkloadResult{Name: w.Name, Phases: []PhaseResult{}}}
	wr := &out.result
	if baseline != nil {
		wr.Published = baseline.Row(w.Name)
	}
	if wr.Published != nil {
		if v, err := wr.Published.LittlesLaw(baseline.Threads); err == nil {
			wr.PublishedLittlesLaw = &LittlesLaw{Threads: wr.Published.ThreadsOf(baseline.Threads), Value: v,
				Tolerance: profiles.LittlesLawTolerance, Within: within(v, profiles.LittlesLawTolerance)}
		}
	}
	if repetitions <= 1 {
		m := rr.measureRepetition(w, 0, wr.Published)
		wr.DDL = m.ddl
		wr.takeFigures(&m.rep)
		out.files = m.files
		out.add(&m)
	} else {
		for k := 1; k <= repetitions; k++ {
			m := rr.measureRepetition(w, k, wr.Published)
			if m.ddl != "" && wr.DDL == "" {
				wr.DDL = m.ddl
			}
			if k == 1 {
				// Every repetition spreads the load alike: the note
				// names the first's agents.
				out.files = m.files
			}
			wr.Repetitions = append(wr.Repetitions, m.rep)
			out.add(&m)
		}
		med := wr.Repetitions[medianRepetition(wr.Repetitions)]
		wr.MedianRepetition = med.Index
		wr.takeFigures(&med)
		wr.Spread = spreadsOf(wr.Repetitions)
		wr.SweepAgreement = sweepAgreementOf(wr.Repetitions)
	}
	if p := MeasuredPhaseOf(wr.Phases); p != nil {
		wr.ThroughputBasis = rr.fig.basis
		_, wr.SanityText = rr.fig.sanity(p)
		if wr.Sanity > 0 {
			in := within(wr.Sanity, profiles.LittlesLawTolerance)
			wr.SanityTolerance, wr.SanityWithin = profiles.LittlesLawTolerance, &in
		}
	}
	return out
}

// add counts a repetition's measured phases and errors into the
// workload's.
func (w *workloadRead) add(m *repetitionRead) {
	w.measured += m.measured
	w.errs = append(w.errs, m.errs...)
}

// takeFigures makes a repetition's figures the workload's own.
func (w *WorkloadResult) takeFigures(r *Repetition) {
	w.Phases, w.Throughput, w.Comparisons, w.Sanity, w.CPU, w.Problems, w.Limit, w.Sweep =
		r.Phases, r.Throughput, r.Comparisons, r.Sanity, r.CPU, r.Problems, r.Limit, r.Sweep
}

// repetitionRead is one repetition of a workload as its files say it: its
// figures, the DDL its agents ran, how many of its phases have records,
// and what could not be read.
type repetitionRead struct {
	rep      Repetition
	ddl      string
	measured int
	errs     []error
	// files are the record files of each phase that has them, for the
	// note on how the load was spread.
	files []workloadFiles
}

// measureRepetition reads repetition k of a workload (k = 0: the run has
// no repetitions, and its files carry no repetition in their names): each
// phase's agents' records merged, and the measured phase's figures; each
// phase's series, made on the way, goes to rr.series.
func (rr *runRead) measureRepetition(w SetupWorkload, k int, published *profiles.BaselineRow) repetitionRead {
	stem := repetition.Stem(w.Name, k)
	name := w.Name
	if k > 0 {
		name = w.Name + " " + repetition.Tag(k)
	}
	var out repetitionRead
	rep := &out.rep
	rep.Index, rep.Phases = k, []PhaseResult{}
	cpuFile, cpuErr := hostcpu.Read(rr.dir, stem, "run")
	if cpuErr != nil {
		out.errs = append(out.errs, fmt.Errorf("%s: the db hosts' CPU: %w", name, cpuErr))
	}
	rep.CPU = cpuFrom(cpuFile)
	for _, ph := range w.Phases {
		ddl, err := ddlOf(rr.dir, stem, ph.Name)
		if err != nil {
			rep.Problems = append(rep.Problems, err.Error())
		}
		if ddl != "" && out.ddl == "" {
			out.ddl = ddl
		}
		if !ph.Records {
			continue
		}
		// Read a tick at a time: the files keep their meta and end
		// records, for the versions and the note on the load's spread.
		read := readPhase(rr.dir, stem, ph.Name, rr.series != nil)
		if read.series != nil {
			rr.series.add(read.series)
		}
		if read.readErr != nil {
			out.errs = append(out.errs, read.readErr)
			rep.Problems = append(rep.Problems, read.readErr.Error())
			continue
		}
		files, merged := read.files, read.merged
		if len(files) == 0 {
			rep.Problems = append(rep.Problems, fmt.Sprintf("no agent records for %s %s: not run, or nothing measured", name, ph.Name))
			continue
		}
		out.measured++
		out.files = append(out.files, workloadFiles{w.Name, ph.Name, files})
		if read.mergeErr != nil {
			out.errs = append(out.errs, read.mergeErr)
			continue
		}
		pr := PhaseResultOf(merged)
		for _, f := range files {
			if v := f.File.Meta.Settings["ybload.version"]; v != "" {
				rr.versions["ybload"] = v
			}
			if v := f.File.Meta.Settings["ysql.driver"]; v != "" {
				rr.versions["driver"] = v
			}
		}
		rep.Phases = append(rep.Phases, pr)
		if ph.Name == MeasuredPhase {
			rep.Throughput = rr.fig.throughput(&pr)
			rep.Comparisons = Compare(published, &pr, rep.Throughput, rep.CPU)
			rep.Sanity, _ = rr.fig.sanity(&pr)
			v := limitOf(cpuFile, cpuErr, merged, rep.Throughput, rep.Sanity, rr.lc)
			rep.Limit = &v
		}
	}
	rep.Sweep = sweepOf(rr.dir, stem, rr.lc)
	return out
}
