#!/usr/bin/env bash
# Runs the test tiers, each as its own `go test` with its own timeout, and
# prints how long each took. Usage: test-tiers.sh all|unit|integration|e2e
set -euo pipefail
cd "$(dirname "$0")/.."
export YBBENCH_TESTENV_REQUIRED=1 CHECKPOINT_DISABLE=1
tier=${1:-all}
declare -a summary=()
rc=0

run_tier() {
  local name=$1; shift
  local start=$SECONDS
  echo "=== tier: $name: $*"
  if "$@"; then
    summary+=("$name: ok in $((SECONDS - start)) s")
  else
    summary+=("$name: FAILED after $((SECONDS - start)) s")
    rc=1
  fi
}

# Budgets on a cold 2-core machine: unit 3 min, integration 12 min, end to
# end and faults 20 min. Packages that start JVMs or hosts run one at a time.
# The test binaries are compiled first, as their own line, so that a cold
# build cache is not charged to the first tier.
if [[ $tier == all ]]; then
  run_tier build bash -c "go test -race -count=1 -run '^\$' ./... >/dev/null && go test -tags integration -count=1 -run '^\$' ./... >/dev/null && go test -tags e2e -count=1 -run '^\$' ./... >/dev/null"
fi
if [[ $tier == all || $tier == unit ]]; then
  run_tier unit go test -race -count=1 -timeout 3m ./...
fi
if [[ $tier == all || $tier == integration ]]; then
  run_tier integration go test -tags integration -run '^TestIntegration' -count=1 -p 1 -timeout 12m ./...
fi
if [[ $tier == all || $tier == e2e ]]; then
  run_tier e2e go test -tags e2e -run '^(TestE2E|TestFault)' -count=1 -p 1 -timeout 20m ./...
fi
echo "=== tiers"
printf '%s\n' "${summary[@]}"
exit $rc
