#!/usr/bin/env bash
# Single-node Apache Cassandra for the integration tests, run from Maven
# Central artifacts (cassandra-all and its runtime dependencies) on Java 17.
#
#   scripts/testenv/cassandra.sh up   <statedir>   start (idempotent), write <statedir>/cassandra.json
#   scripts/testenv/cassandra.sh down <statedir>   stop (SIGTERM, bounded wait, SIGKILL); ok if not running
#   scripts/testenv/cassandra.sh wipe <statedir>   stop and delete the node's data and config
#   scripts/testenv/cassandra.sh fetch             only fill the artifact cache (below); prints its home
#
# The jars are cached in ${YBBENCH_CACHE:-$HOME/.cache/ybbench}/cassandra/<version>/home
# (lib/ and conf/), so only the first `up` on a machine downloads anything. The
# cassandra flavor (provision/cassandra) installs from the same cache; `fetch`
# fills it without starting a node.
# The node lives in <statedir>/cassandra/: its conf copy, data directories, logs,
# pid file and the two ports chosen at first start (kept for reuse).
# Readiness is a real CQL query (internal/testenv/cqlping), never a sleep.
#
# Knobs (environment): YBBENCH_CASSANDRA_HEAP (default 512M),
# YBBENCH_CASSANDRA_JAVA (a Java 11 or 17 binary), YBBENCH_CASSANDRA_START_TIMEOUT
# (seconds, default 180), YBBENCH_CASSANDRA_STOP_TIMEOUT (seconds, default 60).
# See scripts/testenv/cassandra/README.md for the facts behind the choices.
set -euo pipefail

VERSION=5.0.9
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
tmpl=$here/cassandra

usage() { echo "usage: $0 up|down|wipe <statedir> | $0 fetch" >&2; exit 2; }
cmd=${1:-}
if [ "$cmd" = fetch ]; then
  [ $# -eq 1 ] || usage
  set -- fetch "${TMPDIR:-/tmp}" # no state is used; keeps the variables below defined
else
  [ $# -eq 2 ] || usage
  mkdir -p "$2"
fi
state=$(cd "$2" && pwd)
dir=$state/cassandra
frag=$state/cassandra.json
pidfile=$dir/cassandra.pid
heap=${YBBENCH_CASSANDRA_HEAP:-512M}
start_timeout=${YBBENCH_CASSANDRA_START_TIMEOUT:-180}
stop_timeout=${YBBENCH_CASSANDRA_STOP_TIMEOUT:-60}
cache=${YBBENCH_CACHE:-$HOME/.cache/ybbench}/cassandra/$VERSION
home=$cache/home
addr=127.0.0.1

log() { echo "cassandra: $*" >&2; }
die() { log "$*"; exit 1; }

# --- the node's process ------------------------------------------------------

# is_ours PID: the process is a Cassandra started with this state dir's config.
is_ours() {
  local pid=$1
  [ -n "$pid" ] && [ -r "/proc/$pid/cmdline" ] || return 1
  tr '\0' '\n' <"/proc/$pid/cmdline" 2>/dev/null |
    grep -qxF -- "-Dcassandra.config=file://$dir/conf/cassandra.yaml"
}

# node_pid: prints the pid of this state dir's node, if one is running.
node_pid() {
  local pid p
  pid=$(cat "$pidfile" 2>/dev/null || true)
  if is_ours "$pid"; then echo "$pid"; return 0; fi
  # Pid file lost or stale: look for a process started with our exact config.
  for p in /proc/[0-9]*; do
    p=${p#/proc/}
    if is_ours "$p"; then echo "$p" >"$pidfile"; echo "$p"; return 0; fi
  done
  return 1
}

stop_node() {
  local pid i
  if ! pid=$(node_pid); then
    rm -f "$pidfile"
    log "not running"
    return 0
  fi
  log "stopping pid $pid (SIGTERM, up to ${stop_timeout}s)"
  kill -TERM "$pid" 2>/dev/null || true
  for ((i = 0; i < stop_timeout * 5; i++)); do
    is_ours "$pid" || break
    sleep 0.2
  done
  if is_ours "$pid"; then
    log "still running after ${stop_timeout}s: SIGKILL"
    kill -KILL "$pid" 2>/dev/null || true
    for ((i = 0; i < 50; i++)); do is_ours "$pid" || break; sleep 0.2; done
    ! is_ours "$pid" || die "pid $pid survived SIGKILL"
  fi
  rm -f "$pidfile"
  log "stopped"
}

# --- Java ----------------------------------------------------------------------

java_major() { "$1" -XshowSettings:properties -version 2>&1 | awk -F'= ' '/java.specification.version/ {print $2; exit}'; }

find_java() {
  local c v
  for c in "${YBBENCH_CASSANDRA_JAVA:-}" ${JAVA_HOME:+"$JAVA_HOME/bin/java"} \
    /usr/lib/jvm/java-17-openjdk-*/bin/java /usr/lib/jvm/temurin-17-*/bin/java \
    "$(command -v java || true)"; do
    [ -n "$c" ] && [ -x "$c" ] || continue
    v=$(java_major "$c")
    case $v in 11 | 17) readlink -f "$c"; return 0 ;; esac
    [ -n "${YBBENCH_CASSANDRA_JAVA:-}" ] && [ "$c" = "$YBBENCH_CASSANDRA_JAVA" ] &&
      die "YBBENCH_CASSANDRA_JAVA=$c is Java $v; Cassandra $VERSION needs 11 or 17"
  done
  die "no Java 11 or 17 found (Cassandra $VERSION runs on no other); set YBBENCH_CASSANDRA_JAVA"
}

# --- artifacts -----------------------------------------------------------------

# fetch_home: fills $home/lib with the pinned jars (once) and $home/conf with
# our templates (every time, cheap).
fetch_home() {
  mkdir -p "$cache"
  exec 8>"$cache/.lock"
  flock 8
  if [ ! -f "$home/.complete" ]; then
    command -v mvn >/dev/null || die "mvn not found (needed once, to fetch the jars)"
    log "fetching org.apache.cassandra:cassandra-all:$VERSION and its runtime dependencies into $home/lib"
    rm -rf "$home" "$cache/build"
    mkdir -p "$cache/build" "$home"
    cp "$tmpl/pom.xml" "$cache/build/pom.xml"
    if ! (cd "$cache/build" && mvn -B -q package -Dcassandra.version="$VERSION" \
      -Dcassandra.libdir="$home/lib" >"$cache/build/mvn.log" 2>&1); then
      tail -40 "$cache/build/mvn.log" >&2
      die "maven could not fetch Cassandra $VERSION (log: $cache/build/mvn.log)"
    fi
    [ -f "$home/lib/cassandra-all-$VERSION.jar" ] || die "cassandra-all-$VERSION.jar missing after maven"
    ls "$home"/lib/jamm-*.jar >/dev/null 2>&1 || die "jamm jar missing after maven"
    (cd "$home/lib" && ls) >"$home/lib.txt"
    echo "org.apache.cassandra:cassandra-all:$VERSION" >"$home/.complete"
  fi
  mkdir -p "$home/conf"
  cp "$tmpl/cassandra.yaml.in" "$tmpl/logback.xml" "$tmpl/jvm17.options" "$home/conf/"
  flock -u 8
  exec 8>&-
}

# --- ports ---------------------------------------------------------------------

# port_free PORT: nothing listens on / holds 127.0.0.1:PORT.
port_free() {
  python3 - "$addr" "$1" <<'PY'
import socket, sys
s = socket.socket()
try:
    s.bind((sys.argv[1], int(sys.argv[2])))
except OSError:
    sys.exit(1)
PY
}

pick_ports() {
  python3 - "$addr" <<'PY'
import socket, sys
socks = [socket.socket() for _ in range(2)]
for s in socks:
    s.bind((sys.argv[1], 0))
print(*[s.getsockname()[1] for s in socks])
PY
}

# --- up ------------------------------------------------------------------------

cqlping_bin=$dir/bin/cqlping
build_cqlping() {
  mkdir -p "$dir/bin"
  (cd "$root" && go build -o "$cqlping_bin" ./internal/testenv/cqlping) || die "cannot build internal/testenv/cqlping"
}

write_fragment() {
  local port=$1 version=$2 java=$3
  python3 - "$frag" "$addr" "$port" "$version" "$home" "$java" <<'PY'
import json, os, sys
out, host, port, version, home, java = sys.argv[1:]
frag = {"cassandra": {"hosts": [host], "port": int(port), "version": version,
                      "home": home, "java": java}}
tmp = out + ".tmp"
with open(tmp, "w") as f:
    json.dump(frag, f, indent=2)
    f.write("\n")
os.replace(tmp, out)
PY
}

# wait_ready PID PORT: polls with a real CQL query until it answers, the
# process dies, or the start timeout passes. Prints the release_version.
wait_ready() {
  local pid=$1 port=$2 deadline v
  deadline=$(($(date +%s) + start_timeout))
  while :; do
    if v=$("$cqlping_bin" -host "$addr" -port "$port" -timeout 5s 2>/dev/null); then
      echo "$v"
      return 0
    fi
    if ! is_ours "$pid"; then
      log "the node (pid $pid) exited during start; last lines of its logs:"
      tail -20 "$dir/cassandra.out" >&2 || true
      grep -E '^(ERROR|WARN)' "$dir/logs/system.log" 2>/dev/null | tail -20 >&2 || true
      return 1
    fi
    if [ "$(date +%s)" -ge "$deadline" ]; then
      log "CQL on $addr:$port did not answer within ${start_timeout}s; last lines of system.log:"
      tail -20 "$dir/logs/system.log" >&2 || true
      return 1
    fi
    sleep 1
  done
}

up() {
  local java pid np sp version t0 opts
  java=$(find_java)
  fetch_home
  mkdir -p "$dir"
  exec 9>"$dir/.lock"
  flock 9
  build_cqlping

  if pid=$(node_pid); then
    read -r np sp <"$dir/ports"
    log "already running (pid $pid), checking CQL on $addr:$np"
    version=$(wait_ready "$pid" "$np") || die "running node does not answer CQL"
    write_fragment "$np" "$version" "$java"
    log "Cassandra $version ready on $addr:$np"
    return 0
  fi

  # Ports: chosen once, kept; chosen anew only if another process took one.
  if [ -f "$dir/ports" ]; then
    read -r np sp <"$dir/ports"
    if ! port_free "$np" || ! port_free "$sp"; then
      log "kept ports $np/$sp are taken by another process; choosing new ones"
      np=
    fi
  fi
  if [ -z "${np:-}" ]; then
    read -r np sp < <(pick_ports)
    echo "$np $sp" >"$dir/ports"
  fi

  mkdir -p "$dir"/{conf,data,commitlog,hints,saved_caches,cdc_raw,logs,tmp}
  if findmnt -no OPTIONS -T "$dir/tmp" | tr ',' '\n' | grep -qx noexec; then
    die "$dir/tmp is on a noexec mount: JNA cannot load its native library there"
  fi
  sed -e "s|@ADDR@|$addr|g" -e "s|@NATIVE_PORT@|$np|g" -e "s|@STORAGE_PORT@|$sp|g" \
    -e "s|@DIR@|$dir|g" "$home/conf/cassandra.yaml.in" >"$dir/conf/cassandra.yaml"
  cp "$home/conf/logback.xml" "$dir/conf/logback.xml"
  mapfile -t opts < <(grep -v '^[[:space:]]*#' "$home/conf/jvm17.options" | grep -v '^[[:space:]]*$')

  local jamm
  jamm=$(ls "$home"/lib/jamm-*.jar | head -1)
  local -a cmdline=(
    "$java" -Xms"$heap" -Xmx"$heap" "${opts[@]}"
    -javaagent:"$jamm"
    -Djava.io.tmpdir="$dir/tmp" -Djna.tmpdir="$dir/tmp"
    -Dcassandra.config="file://$dir/conf/cassandra.yaml"
    -Dlogback.configurationFile="file://$dir/conf/logback.xml"
    -Dcassandra.logdir="$dir/logs"
    -Dcassandra.storagedir="$dir"
    -Dcassandra-foreground=yes
    -Dcassandra-pidfile="$pidfile"
    -Dcassandra.skip_wait_for_gossip_to_settle=0
    -XX:HeapDumpPath="$dir/tmp"
    -XX:ErrorFile="$dir/logs/hs_err_%p.log"
    -cp "$dir/conf:$home/lib/*"
    org.apache.cassandra.service.CassandraDaemon
  )
  # Run as root, Cassandra's JNA mlockall succeeds and pins every page the JVM
  # has mapped (the whole -Xms heap at once): drop CAP_IPC_LOCK so the lock
  # fails (one WARN) and memory is touched as used.
  if command -v setpriv >/dev/null && [ "$(id -u)" = 0 ]; then
    cmdline=(setpriv --inh-caps=-ipc_lock --bounding-set=-ipc_lock "${cmdline[@]}")
  fi
  printf '%q ' "${cmdline[@]}" >"$dir/cmdline.sh"
  echo >>"$dir/cmdline.sh"

  # node_pid found no node of ours, so a pid file left here is stale (say,
  # from before a reboot): the wait below must see only the new pid.
  rm -f "$pidfile"
  log "starting Cassandra $VERSION on $addr:$np (storage $sp, heap $heap, $java)"
  t0=$(date +%s)
  # Own session, so the node outlives the caller's process group; the child
  # writes its own pid before it becomes java. It must not inherit the lock fd.
  (cd "$dir" && exec setsid bash -c 'echo $$ >"$1"; shift; exec "$@"' _ "$pidfile" "${cmdline[@]}") \
    >>"$dir/cassandra.out" 2>&1 </dev/null 8>&- 9>&- &
  local i
  for ((i = 0; i < 50; i++)); do [ -s "$pidfile" ] && break; sleep 0.1; done
  pid=$(cat "$pidfile" 2>/dev/null) || die "no pid file after start"
  version=$(wait_ready "$pid" "$np") || { stop_node || true; die "start failed (logs in $dir/logs, $dir/cassandra.out)"; }
  write_fragment "$np" "$version" "$java"
  log "Cassandra $version ready on $addr:$np in $(($(date +%s) - t0)) s (pid $pid)"
}

case $cmd in
fetch)
  fetch_home
  log "artifacts of Cassandra $VERSION ready in $home"
  echo "$home"
  ;;
up) up ;;
down)
  if [ -d "$dir" ]; then stop_node; else log "nothing to stop: no $dir"; fi
  rm -f "$frag"
  ;;
wipe)
  if [ -d "$dir" ]; then stop_node; else log "nothing to stop: no $dir"; fi
  rm -rf "$dir" "$frag"
  log "wiped $dir"
  ;;
*) usage ;;
esac
