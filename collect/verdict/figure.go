package verdict

import "github.com/ybbench/ybbench/collect"

// Figure is a metric of a workload's measured phase, taken as a gate takes
// it: of one operation, or, with operation "", of the workload (its
// throughput as its family counts it, its error rate over every
// operation). It errs when the result has no such figure, saying why (the
// workload did not run, its measured phase did not complete, the
// operation was not measured). A repeated workload's figure is its median
// over the repetitions. Other readers of results (compare) use it
// so that a figure means the same everywhere.
func Figure(r *collect.Result, workload, operation, metric string) (float64, error) {
	v, _, err := measure(r, workload, operation, metric)
	return v, err
}

// Operations are the operations a workload's measured phase measured, in
// the result's order.
func Operations(r *collect.Result, workload string) []string { return operations(r, workload) }

// Unit is a metric's unit: ops/s, fraction or µs.
func Unit(metric string) string { return unitOf(metric) }

// Flavor is the database flavor a result ran on.
func Flavor(r *collect.Result) string { return flavorOf(r) }
