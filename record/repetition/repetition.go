// Package repetition names a workload's repetitions (--repeat N) where
// several stages must agree on the name: the agents' files, the CPU files
// and the HDR logs of a repetition carry it in their stem, and the ledger
// in its step. One rule, here, so that the collector finds what the
// orchestrator wrote.
package repetition

import "strconv"

// Max is the most repetitions a run may ask for.
const Max = 100

// Stem is the file stem of a workload's repetition k: the workload alone
// when k is 0 (a run without repetitions keeps the names it always had),
// else <workload>-r<k>.
func Stem(workload string, k int) string {
	if k <= 0 {
		return workload
	}
	return workload + "-" + Tag(k)
}

// Tag is repetition k's short name, r<k>, as the ledger's steps and the
// file names hold it.
func Tag(k int) string { return "r" + strconv.Itoa(k) }

// Label is how the progress view and the plan say which repetition of n
// runs: "r2/3"; "" when the run has no repetitions.
func Label(k, n int) string {
	if k <= 0 || n <= 1 {
		return ""
	}
	return Tag(k) + "/" + strconv.Itoa(n)
}

// Numbers are the repetition numbers of a workload run n times, in order:
// 0 alone (no repetitions: the plain names) when n is 1 or unset, else 1
// to n.
func Numbers(n int) []int {
	if n <= 1 {
		return []int{0}
	}
	out := make([]int, n)
	for i := range out {
		out[i] = i + 1
	}
	return out
}

// SweepStem is the file name stem of step k (from 1) of the
// throughput–latency sweep of stem, a workload or a repetition of it
// (Stem): <workload>-s<k>, or <workload>-r<j>-s<k> for repetition j's.
func SweepStem(stem string, k int) string { return stem + "-s" + strconv.Itoa(k) }
