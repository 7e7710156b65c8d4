// Package ycsb is ybload's YCSB engine: YCSB's command line (-P property
// files, -p overrides, load|run <binding>), its CoreWorkload with the same
// key, field and operation generators as the Java tool, the built-in
// workload files A–F, and its measurements and summary, so that the seeds'
// command lines run unchanged with ./bin/ycsb replaced by ybload.
package ycsb
