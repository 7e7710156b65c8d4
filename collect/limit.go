package collect

import (
	"time"

	"github.com/ybbench/ybbench/collect/bottleneck"
	"github.com/ybbench/ybbench/record/hostcpu"
)

// limitContext is what the limit attribution reads beyond a repetition's
// own files: the run's rules and the db hosts that should have been read.
type limitContext struct {
	rules bottleneck.Rules
	dbs   []string // nil: those read
}

// limitContextOf takes the rules from setup.json (the defaults for a run
// written before them) and the db hosts from the result's hosts.
func limitContextOf(s *Setup, res *Result) limitContext {
	lc := limitContext{rules: bottleneck.Default()}
	if s.LimitRules != nil {
		lc.rules = *s.LimitRules
	}
	for _, h := range res.Hosts {
		for _, r := range h.Roles {
			if r == "db" {
				lc.dbs = append(lc.dbs, h.Name)
			}
		}
	}
	return lc
}

// limitOf attributes a measured phase's limit from its hosts' readings
// (f, nil when none were written) and its merged records: the clients that
// should have been read are those whose agents measured.
func limitOf(f *hostcpu.File, readErr error, p *Phase, throughput, sanity float64, lc limitContext) bottleneck.Verdict {
	ph := bottleneck.Phase{Threads: p.Threads, Throughput: throughput, Sanity: sanity, TargetOpsPerSec: p.TargetOpsPerSec, Ops: p.Ops}
	if !p.MeasureStart.IsZero() && p.End.After(p.MeasureStart) {
		ph.From, ph.To = unixSeconds(p.MeasureStart), unixSeconds(p.End)
	}
	for _, m := range p.Measurements {
		ph.Late += m.Late
	}
	in := bottleneck.Input{Phase: ph, WantDBs: lc.dbs, WantClients: p.Agents, Rules: lc.rules}
	switch {
	case readErr != nil:
		in.Off = "their readings could not be read: " + readErr.Error()
	case f == nil:
		in.Off = "no readings were written for the phase"
	case f.Off != "":
		in.Off = f.Off
	default:
		in.DBs, in.Clients = f.Hosts, f.Clients
	}
	return bottleneck.Judge(in)
}

// unixSeconds is t as the hosts' readings give their time.
func unixSeconds(t time.Time) float64 { return float64(t.UnixNano()) / 1e9 }
