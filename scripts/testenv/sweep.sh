#!/usr/bin/env bash
# Tears down the local runs that an earlier test process of this project
# left on this machine because it was killed before its cleanup ran (a
# timeout, a stopped session): their hosts keep their bridge, and the next
# test on the same subnet fails on "overlaps routes of this machine".
#
# It touches only runs directories the end-to-end tests marked as theirs
# (a .ybbench-test-runs file holding the test process's pid), and only when
# that process is gone; `ybbench down` itself refuses a run whose lock a
# live orchestrator holds.
#
#   scripts/testenv/sweep.sh <ybbench binary>
set -euo pipefail
cd "$(dirname "$0")/../.."
ybbench=$1
if [[ -x .testenv/bin/terraform ]]; then
  export YBBENCH_TERRAFORM=$PWD/.testenv/bin/terraform
fi
export CHECKPOINT_DISABLE=1
shopt -s nullglob
for mark in "${TMPDIR:-/tmp}"/ybb-*/.ybbench-test-runs; do
  dir=$(dirname "$mark")
  pid=$(<"$mark")
  if [[ $pid =~ ^[0-9]+$ ]] && kill -0 "$pid" 2>/dev/null; then
    echo "sweep: $dir belongs to test process $pid, which still runs: left alone"
    continue
  fi
  kept=no
  for ledger in "$dir"/*/run.json; do
    run=$(dirname "$ledger")
    echo "sweep: tearing down $run (its test process $pid is gone)"
    if ! "$ybbench" down --run "$run" >"$run.sweep.log" 2>&1; then
      echo "sweep: down failed for $run; it is kept (see $run.sweep.log)"
      kept=yes
    fi
  done
  if [[ $kept == no ]]; then
    rm -rf "$dir"
  fi
done
