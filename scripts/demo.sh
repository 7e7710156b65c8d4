#!/usr/bin/env bash
# The main job on an embedded default, on this machine, no cloud: starts a
# PostgreSQL of its own (under .demo/, as an unprivileged user), loads YCSB's
# usertable with the agent and runs workload A, printing YCSB's report.
# Everything it writes stays under .demo/ (YBBENCH_DEMO_DIR).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
state=${YBBENCH_DEMO_DIR:-$root/.demo}
records=${RECORDS:-20000}
operations=${OPERATIONS:-200000}
mkdir -p "$state"
"$root/scripts/testenv/postgres.sh" up "$state" >/dev/null
read -r host port user password < <(python3 -c '
import json,sys; p=json.load(open(sys.argv[1]))["postgres"]; print(p["host"], p["port"], p["user"], p["password"])' "$state/postgres.json")
PGPASSWORD=$password psql -q -h "$host" -p "$port" -U "$user" -d postgres \
  -c "DROP DATABASE IF EXISTS ycsb WITH (FORCE)" -c "CREATE DATABASE ycsb" >/dev/null
props=$state/db.properties
umask 077
cat >"$props" <<PROPS
db.driver=org.postgresql.Driver
db.url=jdbc:postgresql://$host:$port/ycsb;
db.user=$user
db.passwd=$password
PROPS
ybload=$root/bin/ybload
echo "== load: $records records, 32 threads" >&2
"$ybload" load ysql -s -P "$props" -P workloads/workloada -p recordcount="$records" -p threadcount=32 \
  -p ysql.createtable=true -p ybload.records="$state/load.jsonl" -p ybload.summary="$state/load.json" >"$state/workloada-ysql-load.dat"
echo "== run: workload A, $operations operations, 256 threads, at most 180 s" >&2
"$ybload" run ysql -s -P "$props" -P workloads/workloada -p recordcount="$records" -p operationcount="$operations" \
  -p threadcount=256 -p maxexecutiontime=180 -p ybload.records="$state/run.jsonl" -p ybload.summary="$state/run.json" \
  | tee "$state/workloada-ysql-transaction.dat"
echo "== results in $state: workloada-ysql-{load,transaction}.dat (YCSB's report), run.jsonl (tick records), run.json (summary)" >&2
