#!/usr/bin/env bash
# Brings up, idempotently, the servers the integration tests share, and writes
# their endpoints to one file (.testenv/endpoints.json, or $YBBENCH_TESTENV).
#
# Each component script (scripts/testenv/<name>.sh up) starts its server if it
# is not already running and writes its own fragment .testenv/<name>.json; this
# script merges the fragments. Components: postgres, cassandra, tools,
# providers (the Terraform provider schemas, no server), provider-builds (the
# real aws and google providers built from their Go source, no server), moto
# (the AWS APIs),
# junit (PyPI junitparser in a venv, no server), refs (YCSB core 0.17.0 and
# yb-sample-apps 1.0.11 from Maven Central, no server), chromium (Debian's
# headless browser, no server).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
state=${YBBENCH_TESTENV_DIR:-$root/.testenv}
out=${YBBENCH_TESTENV:-$state/endpoints.json}
mkdir -p "$state"
components=${YBBENCH_TESTENV_COMPONENTS:-tools providers provider-builds moto postgres cassandra junit refs chromium}
for c in $components; do
  start=$(date +%s)
  "$here/$c.sh" up "$state"
  echo "testenv: $c ready in $(( $(date +%s) - start )) s" >&2
done
# Merge the fragments into one object, keyed by component.
python3 - "$state" "$out" $components <<'PY'
import json, sys, os
state, out, comps = sys.argv[1], sys.argv[2], sys.argv[3:]
merged = {}
for c in comps:
    with open(os.path.join(state, c + ".json")) as f:
        frag = json.load(f)
    merged.update(frag)
tmp = out + ".tmp"
with open(tmp, "w") as f:
    json.dump(merged, f, indent=2)
os.replace(tmp, out)
PY
echo "testenv: endpoints in $out" >&2
