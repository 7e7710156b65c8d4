// Package kv is ybload's key-value workloads, faithful to yb-sample-apps'
// CassandraKeyValue and CassandraBatchKeyValue (spec kv-workloads.md): the
// same keyspace, table and statements, keys (key:<n> or <uuid>:<n>),
// values (marker, "val:<n>" prefix, random bytes, Adler-32), reads only of
// keys known to be written, separate reader and writer threads, batches
// counted per key and timed per batch, every read verified, and the
// tool's periodic metrics line — with HDR histograms, tick records and a
// JSON summary besides.
//
//	ybload kv --workload CassandraKeyValue --nodes h1:9042,h2:9042,h3:9042 --nouuid \
//	  --value_size 256 --num_threads_read 0 --num_threads_write 256 --num_unique_keys 1000000000
package kv
