package verdict

import (
	"fmt"
	"os"
)

// DefaultHistoryLast is how many runs a history baseline takes the median
// of when nothing says how many.
const DefaultHistoryLast = 5

// UseHistory makes the file's baseline the median of the last runs in dir
// (the --history flag), whatever the file names: a job that keeps its
// results in one place gates on them without editing the file. last < 1
// keeps the file's own count when it names a history, else
// DefaultHistoryLast. The error names the flag: it is the user's input,
// not the file's.
func (f *File) UseHistory(dir string, last int) error {
	if info, err := os.Stat(dir); err != nil || !info.IsDir() {
		return fmt.Errorf("--history %s: not a directory of results", dir)
	}
	if last < 1 {
		last = DefaultHistoryLast
		if f.Baseline.Source == SourceHistory && f.Baseline.Last > 0 {
			last = f.Baseline.Last
		}
	}
	f.Baseline = BaselineSpec{Source: SourceHistory, Dir: dir, Last: last, Line: f.Baseline.Line}
	return nil
}
