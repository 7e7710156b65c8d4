#!/usr/bin/env bash
# make bench: builds the peers (go-ycsb v1.0.3 from the Go module proxy, in a
# copy of its module since its go.mod has a replace directive; the pgx
# floor) into .cache/bench, then runs the side-by-side measurements.
# Figures go to stdout and bench-out/; nothing here passes or fails on them.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
cache=$root/.cache/bench
mkdir -p "$cache"
if [[ ! -x $cache/go-ycsb ]]; then
  echo "bench: building go-ycsb v1.0.3 (once; takes a few minutes)" >&2
  dir=$(go mod download -json github.com/pingcap/go-ycsb@v1.0.3 | python3 -c 'import json,sys; print(json.load(sys.stdin)["Dir"])')
  work=$(mktemp -d)
  cp -r "$dir"/. "$work"
  chmod -R u+w "$work"
  (cd "$work" && GOFLAGS=-mod=mod go build -o "$cache/go-ycsb" ./cmd/go-ycsb)
  rm -rf "$work"
fi
go build -o "$cache/pgxfloor" ./scripts/bench/pgxfloor
# The callgrind section counts instructions per transaction; valgrind is
# installed here, for the benchmark only, not by scripts/setup.sh.
if ! command -v valgrind >/dev/null; then
  echo "bench: installing valgrind" >&2
  apt-get install -y valgrind >&2 || { apt-get update >&2 && apt-get install -y valgrind >&2; }
fi
mkdir -p bench-out
echo "== Go benchmarks" >&2
go test -run '^$' -bench . -benchmem ./bench/... ./collect/report | tee bench-out/go-bench.txt
echo "== side by side" >&2
export YBBENCH_TERRAFORM=${YBBENCH_TERRAFORM:-$root/.testenv/bin/terraform}
go run ./scripts/bench/sidebyside -endpoints .testenv/endpoints.json "$@"
