// Package ycql is ybload's YCQL binding: CQL sessions on upstream gocql
// against YugabyteDB's YCQL API or Apache Cassandra, with the settings the
// reference clients use, and the YCSB binding of YugabyteDB's YCSB fork
// (site.ycsb.db.CassandraCQLClient, spec ycsb.md §7.2).
//
// The server flavor is detected when connecting (system.partitions exists
// only on YugabyteDB). On YugabyteDB statements are routed as the reference
// Java driver's PartitionAwarePolicy does: YugabyteDB's 16-bit partition
// hash of the bound partition key (hash.go) looked up in the partition map
// the server publishes in system.partitions (partitions.go), tablet leader
// first at QUORUM, replicas in random order at ONE (policy.go). On Cassandra
// gocql's token-aware policy routes them.
//
// No YugabyteDB server is exercised by this package's tests: the hash is
// checked against vectors produced by running the reference driver's code,
// the partition map and the pick over it as pure functions, the
// system.partitions reader on its CQL text and rows; sessions, statements
// and faults run against a real Apache Cassandra.
package ycql
