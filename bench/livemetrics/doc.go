// Package livemetrics serves a running agent's figures at /metrics in the
// Prometheus text format (OpenMetrics when the scraper asks for it), so
// that a run can be watched while it runs, by Prometheus or by curl,
// rather than only read afterwards from its records. It is off unless the
// command line names an address (ybload.metrics.addr, --ybload-metrics-addr,
// --ybload_metrics_addr).
//
// Nothing is added to an operation's path: the engine already merges its
// workers' samples into one interval's histograms every tick, and the Sink
// merges each tick into the run's own HDR histograms and counts under a
// lock that only the tick and a scrape take; a scrape sorts the HDR counts
// under the buckets' bounds. A scrape reads what the last tick left (one
// second old at most, at the default interval), always one tick's state
// whole.
//
// The metrics (op is a measurement name: READ, UPDATE, Write, …):
//
//	ybload_operations_total{op}          counter    successful measurements in the measured window
//	ybload_errors_total{op}              counter    failed measurements in the measured window
//	ybload_warmup_operations_total{op}   counter    measurements during the warm-up, either outcome
//	ybload_service_time_seconds{op}      histogram  latency from the actual start, successful measurements
//	ybload_response_time_seconds{op}     histogram  latency from the intended start (paced runs only)
//	ybload_target_ops_per_second         gauge      the agent's target rate (0: a closed loop)
//	ybload_phase{phase}                  gauge      1 for the current phase, 0 for the others:
//	                                                starting, warmup, run, done
//
// with the Go runtime's and the process's own (go_*, process_*: the
// agent's CPU among them). The counters and histograms count what the
// summary counts (the warm-up apart), so at the end they equal it.
//
// The histograms are classic ones, their bounds record/hist's
// BucketBounds: 1 µs to 2^32 µs, two a doubling, on the HDR geometry's
// own boundaries, so each of the tick's HDR counts falls in one bucket
// whole and a bucket's count is exact. Native histograms were not used:
// they need the protobuf exposition, which neither the text format nor
// curl reads, and the agents' exact percentiles are in their records
// anyway; 64 buckets put a quantile read by histogram_quantile within
// half a doubling.
package livemetrics
