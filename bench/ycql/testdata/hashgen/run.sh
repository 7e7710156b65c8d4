#!/usr/bin/env bash
# Regenerates ../partition_hash_vectors.txt by running the reference code:
# the YugabyteDB Java driver's own partition-hash function
# (com.yugabyte.driver.core.policies.PartitionAwarePolicy.getKey(byte[]),
# Jenkins hash64 with seed 97 folded to 16 bits) from Maven Central.
#
#   bench/ycql/testdata/hashgen/run.sh
#
# Needs Java 17 and Maven (and Maven Central) once. `make test` never runs
# this: the Go unit tests only read the vectors it wrote.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cd "$here"
mvn -q -B package
out=$here/../partition_hash_vectors.txt
java -cp "target/classes:target/lib/*" hashgen.HashGen >"$out.tmp"
mv "$out.tmp" "$out"
echo "wrote $out ($(grep -vc '^#' "$out") vectors)" >&2
