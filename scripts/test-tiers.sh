#!/usr/bin/env bash
# Runs the test tiers, each as its own `go test` with its own timeout, and
# prints how long each took. Usage: test-tiers.sh all|unit|integration|e2e
set -euo pipefail
cd "$(dirname "$0")/.."
export YBBENCH_TESTENV_REQUIRED=1 CHECKPOINT_DISABLE=1
tier=${1:-all}
declare -a summary=()
rc=0

# Tests that may skip although the test environment is required, each
# with why: a skip hides a tier that did not run, so any other fails it.
allow_skips=(
  TestE2EYugabyteRealTarball    # needs a real YugabyteDB release tarball (YBBENCH_YB_TARBALL)
  TestE2ELocalHostsPathTerraform # needs a terraform on PATH other than the test environment's 1.5.7
)
allow=$(IFS=,; echo "${allow_skips[*]}")

# testtier renders `go test -json`: failed tests' output, skips and their
# reasons, one summary line per tier (scripts/testtier).
logs=.testlogs
mkdir -p "$logs"
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
go build -o "$bin/testtier" ./scripts/testtier

# sweep tears down what a killed earlier test process left (its hosts'
# bridges would overlap the subnets the tests use again).
sweep() {
  go build -o "$bin/ybbench" ./cmd/ybbench
  scripts/testenv/sweep.sh "$bin/ybbench"
}

record() {
  local name=$1 start=$2 ok=$3
  if [[ $ok == yes ]]; then
    summary+=("$name: ok in $((SECONDS - start)) s")
  else
    summary+=("$name: FAILED after $((SECONDS - start)) s")
    rc=1
  fi
}

# run_step runs a command whose output is printed as it is.
run_step() {
  local name=$1; shift
  local start=$SECONDS ok=yes
  echo "=== tier: $name: $*"
  "$@" || ok=no
  record "$name" "$start" "$ok"
}

# run_tier runs `go test -json ARGS` and renders it with testtier, which
# fails the tier on a failed test or on a skip not allowed. The JSON is
# kept in .testlogs/<tier>.json (every test's output and time).
run_tier() {
  local name=$1; shift
  local start=$SECONDS ok=yes
  echo "=== tier: $name: go test -json $*"
  go test -json "$@" 2>&1 | tee "$logs/$name.json" | "$bin/testtier" -tier "$name" -required="$required" -allow "$allow" || ok=no
  record "$name" "$start" "$ok"
}
required=false
if [[ ${YBBENCH_TESTENV_REQUIRED:-} == 1 ]]; then required=true; fi

# Budgets on a cold 2-core machine: unit 3 min, integration 12 min, end to
# end and faults 20 min. Packages that start JVMs or hosts run one at a time.
# The test binaries are compiled first, as their own line, so that a cold
# build cache is not charged to the first tier.
if [[ $tier == all ]]; then
  run_step build bash -c "go test -race -count=1 -run '^\$' ./... >/dev/null && go test -tags integration -count=1 -run '^\$' ./... >/dev/null && go test -tags e2e -count=1 -run '^\$' ./... >/dev/null"
fi
if [[ $tier == all || $tier == unit ]]; then
  run_tier unit -race -count=1 -timeout 3m ./...
fi
if [[ $tier == all || $tier == integration || $tier == e2e ]]; then
  sweep
fi
if [[ $tier == all || $tier == integration ]]; then
  run_tier integration -tags integration -run '^TestIntegration' -count=1 -p 1 -timeout 12m ./...
fi
if [[ $tier == all || $tier == e2e ]]; then
  run_tier e2e -tags e2e -run '^(TestE2E|TestFault)' -count=1 -p 1 -timeout 20m ./...
fi
echo "=== tiers"
printf '%s\n' "${summary[@]}"
exit $rc
