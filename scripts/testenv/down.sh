#!/usr/bin/env bash
# Stops the shared test servers that up.sh started. Safe to run twice.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
state=${YBBENCH_TESTENV_DIR:-$root/.testenv}
components=${YBBENCH_TESTENV_COMPONENTS:-tools moto postgres cassandra}
rc=0
for c in $components; do
  "$here/$c.sh" down "$state" || rc=1
done
rm -f "${YBBENCH_TESTENV:-$state/endpoints.json}"
exit $rc
