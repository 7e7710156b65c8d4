package collect

import "github.com/ybbench/ybbench/record"

// phaseWalk reads a phase's files side by side, a tick index at a time:
// all the ticks of the lowest index left, file after file, then the next
// index, holding one tick of each file. That is the order in which a
// chart's interval (one index, over the agents) is added up with one
// interval open at a time, and the merger, which adds counts, takes the
// ticks in any order: so one reading serves both, each tick decoded once.
type phaseWalk struct {
	streams []*RecordStream
	live    []bool
	// disordered is set when a file's indices go back or a file does not
	// read to its end: the intervals cannot then be added up one at a
	// time, and are read whole instead (seriesWhole).
	disordered bool
	// stop ends the walk at the first disorder: a reader that wants only
	// the intervals has no use for the rest.
	stop bool
}

// startWalk reads the first tick of every file.
func startWalk(streams []*RecordStream, stop bool) *phaseWalk {
	w := &phaseWalk{streams: streams, live: make([]bool, len(streams)), stop: stop}
	for i, s := range streams {
		if w.live[i] = s.Next(); !w.live[i] && s.Err() != nil {
			w.disordered = true
		}
	}
	return w
}

// run calls begin with the first tick of each index, tick with each tick
// and its file's number, and end after each index's ticks. A file whose
// indices go back is still read to its end: its ticks of a lower index
// are taken when that index is the lowest left, so that every tick is
// handed over once. A file that cannot be read stops at its error
// (its stream's Err).
func (w *phaseWalk) run(begin func(*record.Tick), tick func(int, *record.Tick), end func()) {
	for !(w.stop && w.disordered) {
		cur, found := 0, false
		for i, s := range w.streams {
			if w.live[i] && (!found || s.Tick().Index < cur) {
				cur, found = s.Tick().Index, true
			}
		}
		if !found {
			return
		}
		first := true
		for i, s := range w.streams {
			for w.live[i] && s.Tick().Index == cur {
				if first {
					begin(s.Tick())
					first = false
				}
				tick(i, s.Tick())
				w.live[i] = s.Next()
				if !w.live[i] && s.Err() != nil || w.live[i] && s.Tick().Index < cur {
					w.disordered = true
					if w.stop {
						return
					}
				}
			}
		}
		end()
	}
}
