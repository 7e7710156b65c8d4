#!/usr/bin/env bash
# Test-environment component "moto": a moto server (a local stand-in for the
# AWS APIs) that the infra/aws tests point aws-sdk-go-v2 at, and its fragment
# <statedir>/moto.json ({"moto": {"url": "http://127.0.0.1:<port>"}}).
#
#   moto.sh up   <statedir>   install moto in its own venv if missing, start the server
#                             if it is not running, write the fragment
#   moto.sh down <statedir>   stop the server (the venv stays for the next `up`)
#
# The server validates instance types and AMIs as AWS would (moto does not by
# default). Its state is in memory: tests reset it (POST /moto-api/reset)
# before they use it. Layout under <statedir>/moto: venv/, port, pid, server.log.
set -euo pipefail

# The exact version the tests were written against (../shared cloud facts:
# 5.2.5 was probed with aws-sdk-go-v2 here).
moto_version=5.2.5
start_timeout=60

die() { echo "moto: $*" >&2; exit 1; }
note() { echo "moto: $*" >&2; }
usage() { echo "usage: $0 up|down <statedir>" >&2; exit 2; }

[ $# -eq 2 ] || usage
cmd=$1
case $cmd in up|down) ;; *) usage ;; esac
mkdir -p "$2"
state=$(cd "$2" && pwd -P)
dir=$state/moto
venv=$dir/venv
frag=$state/moto.json
mkdir -p "$dir"
exec 9>"$dir/lock"
flock 9

running() { # the pid in the pid file is a moto server answering on its port
  [ -s "$dir/pid" ] && [ -s "$dir/port" ] || return 1
  kill -0 "$(cat "$dir/pid")" 2>/dev/null || return 1
  curl -fsS -o /dev/null "http://127.0.0.1:$(cat "$dir/port")/moto-api/" 2>/dev/null
}

install() {
  if [ -x "$venv/bin/moto_server" ] && [ "$("$venv/bin/python" -c 'import moto; print(moto.__version__)' 2>/dev/null)" = "$moto_version" ]; then
    return
  fi
  python3 -m venv --help >/dev/null 2>&1 || die "python3's venv module is missing (scripts/setup.sh installs python3-venv)"
  note "installing moto[server]==$moto_version in $venv"
  rm -rf "$venv"
  python3 -m venv "$venv" || die "python3 -m venv $venv failed (scripts/setup.sh installs python3-venv)"
  "$venv/bin/pip" install --quiet --disable-pip-version-check "moto[server]==$moto_version" ||
    die "pip install moto[server]==$moto_version failed"
}

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'
}

up() {
  install
  if ! running; then
    local port pid t0=$SECONDS
    port=$(free_port)
    # setsid: the server outlives this script and the make that ran it.
    # The recorder (the tests' request log) writes its file here, not in
    # the directory the server was started from.
    MOTO_EC2_ENABLE_INSTANCE_TYPE_VALIDATION=true MOTO_ENABLE_AMI_VALIDATION=true MOTO_RECORDER_FILEPATH="$dir/recording" \
      setsid "$venv/bin/moto_server" -H 127.0.0.1 -p "$port" >"$dir/server.log" 2>&1 9>&- </dev/null &
    pid=$!
    echo "$pid" >"$dir/pid"
    echo "$port" >"$dir/port"
    until running; do
      kill -0 "$pid" 2>/dev/null || { tail -n 20 "$dir/server.log" >&2; die "the server exited (log: $dir/server.log)"; }
      [ $((SECONDS - t0)) -lt $start_timeout ] || die "the server did not answer within ${start_timeout} s (log: $dir/server.log)"
      sleep 0.5
    done
    note "server $moto_version started on port $port"
  fi
  python3 - "$frag" "$(cat "$dir/port")" <<'PY'
import json, sys, os
frag, port = sys.argv[1], sys.argv[2]
tmp = frag + ".tmp"
with open(tmp, "w") as f:
    json.dump({"moto": {"url": "http://127.0.0.1:" + port}}, f, indent=2)
os.replace(tmp, frag)
PY
}

down() {
  if [ -s "$dir/pid" ] && kill -0 "$(cat "$dir/pid")" 2>/dev/null; then
    kill "$(cat "$dir/pid")" 2>/dev/null || true
    for _ in $(seq 1 50); do kill -0 "$(cat "$dir/pid")" 2>/dev/null || break; sleep 0.1; done
    note "server stopped"
  fi
  rm -f "$dir/pid" "$frag"
}

"$cmd"
