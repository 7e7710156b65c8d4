package main

// The instruction profile of the callgrind section: where a client's
// instructions per transaction go, by function, as the difference of two
// call graphs (the long run's self costs less the short run's, over the
// difference of their events), so that start-up drops out of each function
// as it drops out of the total.

import (
	"bufio"
	"bytes"
	"cmp"
	"fmt"
	"io"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// annotateLine is one line of callgrind_annotate's function table:
// "1,234 ( 5.67%)  file:function [object]".
var annotateLine = regexp.MustCompile(`^\s*([\d,]+)\s+\(\s*[\d.]+%\)\s+(.*)$`)

// recursion is callgrind's suffix for a function's recursive or
// re-entered instances ('2, '3, …), folded into the function.
var recursion = regexp.MustCompile(`'\d+$`)

// selfCosts parses callgrind_annotate --inclusive=no output into each
// function's own instructions.
func selfCosts(r io.Reader) (map[string]int64, error) {
	out := map[string]int64{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for sc.Scan() {
		m := annotateLine.FindStringSubmatch(sc.Text())
		if m == nil || strings.Contains(m[2], "PROGRAM TOTALS") {
			continue
		}
		n, err := strconv.ParseInt(strings.ReplaceAll(m[1], ",", ""), 10, 64)
		if err != nil {
			return nil, fmt.Errorf("callgrind_annotate line %q: %w", sc.Text(), err)
		}
		name := m[2]
		if i := strings.LastIndex(name, " ["); i >= 0 {
			name = name[:i] // the object file
		}
		if i := strings.Index(name, ":"); i >= 0 {
			name = name[i+1:] // the source file
		}
		out[recursion.ReplaceAllString(name, "")] += n
	}
	return out, sc.Err()
}

// instrGroup is the part of the program a function belongs to.
func instrGroup(fn string) string {
	for _, p := range []string{"runtime.", "internal/runtime/", "internal/poll.", "syscall.", "internal/syscall/", "net.", "time.", "sync."} {
		if strings.HasPrefix(fn, p) {
			return "Go runtime (scheduler, network poller, timers, system calls)"
		}
	}
	switch {
	case strings.HasPrefix(fn, "github.com/jackc/"):
		return "pgx (pgconn, pgproto3)"
	case strings.HasPrefix(fn, "github.com/ybbench/"):
		return "ybload's own code"
	}
	return "other (standard library, libc)"
}

// fnCost is one function's, or one group's, instructions per transaction.
type fnCost struct {
	name  string
	perTx float64
}

// perTxCosts is each function's instructions per transaction: (long − short)
// / events, largest first; functions whose difference is not positive (noise
// of the Go runtime's background work) are left out of the list but kept in
// the total.
func perTxCosts(short, long map[string]int64, events int) (fns []fnCost, total float64) {
	add := func(fn string) {
		d := float64(long[fn]-short[fn]) / float64(events)
		total += d
		if d > 0 {
			fns = append(fns, fnCost{fn, d})
		}
	}
	for fn := range long {
		add(fn)
	}
	for fn := range short {
		if _, ok := long[fn]; !ok {
			add(fn) // gone from the long run: a negative difference
		}
	}
	slices.SortFunc(fns, func(a, b fnCost) int {
		return cmp.Or(cmp.Compare(b.perTx, a.perTx), strings.Compare(a.name, b.name))
	})
	return fns, total
}

// writeInstrProfile prints the groups' and the top functions' instructions
// per transaction from two call graphs of the same client.
func writeInstrProfile(out io.Writer, shortFile, longFile string, events int) error {
	costs := make([]map[string]int64, 2)
	for i, f := range []string{shortFile, longFile} {
		b, err := exec.Command("callgrind_annotate", "--inclusive=no", "--threshold=100", f).Output()
		if err != nil {
			return fmt.Errorf("callgrind_annotate %s: %w", f, err)
		}
		if costs[i], err = selfCosts(bytes.NewReader(b)); err != nil {
			return err
		}
	}
	fns, total := perTxCosts(costs[0], costs[1], events)
	groups := map[string]float64{}
	for _, f := range fns {
		groups[instrGroup(f.name)] += f.perTx
	}
	var gs []fnCost
	for g, v := range groups {
		gs = append(gs, fnCost{g, v})
	}
	slices.SortFunc(gs, func(a, b fnCost) int { return strings.Compare(a.name, b.name) })
	fmt.Fprintf(out, "Self instructions per transaction, (long run − short run) / %d, from the call graphs of a ybload built with its symbols (same code, same counts); total %.0f.\n\n| part | instructions/txn | share |\n|---|---|---|\n", events, total)
	for _, g := range gs {
		fmt.Fprintf(out, "| %s | %.0f | %.1f%% |\n", g.name, g.perTx, 100*g.perTx/total)
	}
	fmt.Fprintf(out, "\n| function | instructions/txn | share |\n|---|---|---|\n")
	for _, f := range fns[:min(15, len(fns))] {
		fmt.Fprintf(out, "| %s | %.0f | %.1f%% |\n", f.name, f.perTx, 100*f.perTx/total)
	}
	fmt.Fprintln(out, "\n(functions whose count fell between the runs are in the total, not in the tables)")
	return nil
}
