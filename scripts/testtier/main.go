// Command testtier reads `go test -json` on stdin and prints what a person
// reading a CI log needs: the output of every failed test (and of a package
// that failed outside its tests, such as a build error or a timeout), every
// skipped test with its reason, and one summary line for the tier.
//
// A skip hides a tier that did not run, so when -required is given (the
// test-tiers script passes it under YBBENCH_TESTENV_REQUIRED=1) every
// skipped test fails the tier, except the tests named by -allow, which are
// printed. The exit status is 1 when the tier failed.
//
// Usage: go test -json ... 2>&1 | testtier -tier NAME [-required] [-allow Test1,Test2]
package main

import (
	"flag"
	"fmt"
	"os"
	"strings"
)

func main() {
	tier := flag.String("tier", "tests", "the tier's name, for the summary line")
	required := flag.Bool("required", false, "fail the tier on any skipped test not allowed")
	allow := flag.String("allow", "", "comma-separated test names that may skip even when -required")
	flag.Parse()
	if flag.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "testtier: unexpected argument %q\n", flag.Arg(0))
		os.Exit(2)
	}
	s, err := Read(os.Stdin)
	if err != nil {
		fmt.Fprintf(os.Stderr, "testtier: %v\n", err)
		os.Exit(1)
	}
	ok := Render(os.Stdout, s, Rule{Tier: *tier, Required: *required, Allow: split(*allow)})
	if !ok {
		os.Exit(1)
	}
}

// split parses -allow's comma-separated names.
func split(list string) []string {
	var out []string
	for _, n := range strings.Split(list, ",") {
		if n = strings.TrimSpace(n); n != "" {
			out = append(out, n)
		}
	}
	return out
}
