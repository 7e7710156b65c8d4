#!/usr/bin/env bash
# Test-environment component "postgres": the shared PostgreSQL server of the
# integration tests, and its fragment <statedir>/postgres.json.
#
#   postgres.sh up   <statedir>   start the server if it is not running (creating it
#                                 the first time), write the fragment
#   postgres.sh down <statedir>   stop it (fast shutdown); keeps the data for a quick restart
#   postgres.sh wipe <statedir>   stop it and delete its data, password, port and logs
#
# Layout under <statedir>/postgres:
#   data/      the cluster (initdb), owned by the server's OS user
#   log/       server log (postgresql.log), startup.log, initdb.log
#   password   the superuser role's password, generated once (0600)
#   port       the TCP port chosen at the first start, reused afterwards
#   .s.PGSQL.<port>   the Unix socket (the scripts talk to the server through it)
#
# The fixed settings live in scripts/testenv/postgresql.conf; the generated
# data/ybbench.conf includes it and adds only port and directories.
#
# PostgreSQL refuses to run as root, so when run as root this script creates the
# system user ybbench-pg and runs initdb, pg_ctl and the server as that user.
# Run as another user, the server simply runs as that user.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
fixed_conf=$here/postgresql.conf
db_role=ybbench      # superuser role the tests use
pg_user=ybbench-pg   # OS user the server runs as when we are root
start_timeout=60     # seconds to wait for a starting server to accept connections

die() { echo "postgres: $*" >&2; exit 1; }
note() { echo "postgres: $*" >&2; }
usage() { echo "usage: $0 up|down|wipe <statedir>" >&2; exit 2; }

[ $# -eq 2 ] || usage
cmd=$1
case $cmd in up|down|wipe) ;; *) usage ;; esac
mkdir -p "$2"
state=$(cd "$2" && pwd)
pgdir=$state/postgres
data=$pgdir/data
logdir=$pgdir/log
pwfile=$pgdir/password
portfile=$pgdir/port
frag=$state/postgres.json

# The server user may not be allowed into the caller's working directory
# (initdb and postgres complain about it), and ambient libpq settings must not
# redirect our own psql/pg_isready calls or change the server's defaults.
cd /
unset PGHOST PGHOSTADDR PGPORT PGUSER PGDATABASE PGPASSWORD PGPASSFILE PGOPTIONS PGSERVICE PGDATA

# as_pg runs a command as the server's OS user. It closes fd 9, the lock below:
# the postmaster that pg_ctl starts would otherwise inherit it and hold the lock
# for as long as the server runs, blocking every later up/down.
if [ "$(id -u)" -eq 0 ]; then
  os_user=$pg_user
  as_pg() { runuser -u "$os_user" -- "$@" 9>&-; }
else
  os_user=$(id -un)
  as_pg() { "$@" 9>&-; }
fi

# pg_bin [major]: the bin directory of the given PostgreSQL major, or of the
# highest installed one. Debian's layout, not the /usr/local or /usr/bin wrappers,
# whose version depends on what else is installed.
pg_bin() {
  local want=${1:-} d found=()
  for d in /usr/lib/postgresql/*/bin; do
    [ -x "$d/postgres" ] && [ -x "$d/initdb" ] && [ -x "$d/pg_ctl" ] && [ -x "$d/pg_isready" ] && [ -x "$d/psql" ] || continue
    found+=("$d")
  done
  if [ -n "$want" ]; then
    d=/usr/lib/postgresql/$want/bin
    for f in "${found[@]}"; do [ "$f" = "$d" ] && { echo "$d"; return; }; done
    return 1
  fi
  [ ${#found[@]} -gt 0 ] || return 1
  printf '%s\n' "${found[@]}" | sort -V | tail -n 1
}

choose_bin() {
  if [ -f "$data/PG_VERSION" ]; then
    # An existing cluster can only be run by its own major version.
    local v
    v=$(cat "$data/PG_VERSION")
    bin=$(pg_bin "$v") || die "$data was created by PostgreSQL $v, but /usr/lib/postgresql/$v/bin (postgres, initdb, pg_ctl, pg_isready, psql) is not installed; install postgresql-$v or run '$0 wipe $state'"
  else
    bin=$(pg_bin) || die "no PostgreSQL server found under /usr/lib/postgresql/<major>/bin (need postgres, initdb, pg_ctl, pg_isready, psql); run scripts/setup.sh or apt-get install postgresql"
  fi
}

ensure_os_user() {
  [ "$(id -u)" -eq 0 ] || return 0
  id -u "$os_user" >/dev/null 2>&1 && return 0
  note "creating system user $os_user (PostgreSQL will not run as root)"
  useradd --system --user-group --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin "$os_user" ||
    die "could not create the system user $os_user (useradd failed)"
}

# make_reachable <dir>: the server user must be able to pass through every parent
# of its directories and of the fixed configuration file. A state dir under a
# private home (e.g. /root, 0700) would otherwise stop it; granting search
# permission (x, not read) on the parents is the least that works.
make_reachable() {
  local target=$1 p=""
  [ "$(id -u)" -eq 0 ] || return 0
  as_pg test -x "$target" && return 0
  local IFS=/ part
  for part in $target; do
    [ -n "$part" ] || continue
    p=$p/$part
    if ! as_pg test -x "$p"; then
      note "granting others search permission (o+x) on $p so that $os_user can reach $target"
      chmod o+x "$p"
    fi
  done
  as_pg test -x "$target" || die "$os_user still cannot reach $target"
}

# own <path>...: give paths to the server user (no-op when not root).
own() { [ "$(id -u)" -ne 0 ] || chown "$os_user:" "$@"; }

ensure_dirs() {
  mkdir -p "$pgdir" "$logdir"
  own "$pgdir" "$logdir"
  # Readable by others so anyone on the machine can tail the log and use the socket.
  chmod 0755 "$pgdir" "$logdir"
  make_reachable "$pgdir"
  [ -r "$fixed_conf" ] || die "the fixed configuration $fixed_conf is missing"
  make_reachable "$(dirname "$fixed_conf")"
  as_pg test -r "$fixed_conf" || die "$os_user cannot read $fixed_conf (check its permissions)"
}

# Generated once; kept so tests and later runs agree. Hex only, because it goes
# unescaped into connection URLs (testenv.Postgres.URL).
ensure_password() {
  new_password=0
  if [ ! -s "$pwfile" ]; then
    (umask 077 && head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$pwfile")
    new_password=1
  fi
  own "$pwfile"
  chmod 0600 "$pwfile"
  password=$(cat "$pwfile")
}

# port_free <port>: nothing is bound to 127.0.0.1:<port>.
port_free() {
  python3 -c '
import socket, sys
s = socket.socket()
try:
    s.bind(("127.0.0.1", int(sys.argv[1])))
except OSError:
    sys.exit(1)
finally:
    s.close()
' "$1"
}

# A port below the kernel's ephemeral range (32768+ by default), so outgoing
# connections cannot take it between a `down` and the next `up`.
pick_port() {
  local p
  for _ in $(seq 1 200); do
    p=$((20000 + RANDOM % 12000))
    if port_free "$p"; then echo "$p"; return 0; fi
  done
  return 1
}

ensure_port() {
  if [ -s "$portfile" ]; then
    port=$(cat "$portfile")
    port_free "$port" && return 0
    note "port $port (from $portfile) is taken by another process; choosing a new one"
  fi
  port=$(pick_port) || die "found no free TCP port on 127.0.0.1 between 20000 and 31999"
  echo "$port" >"$portfile"
  note "using port $port"
}

check_socket_path() {
  # Unix socket paths are limited to 107 bytes; a deep state dir would make the
  # server fail with a less obvious message.
  local sock="$pgdir/.s.PGSQL.$port"
  [ ${#sock} -le 107 ] || die "socket path $sock is longer than 107 bytes; use a shorter state dir (YBBENCH_TESTENV_DIR)"
}

sq() { printf '%s' "$1" | sed "s/'/''/g"; }  # quote for postgresql.conf strings

write_generated_conf() {
  local f=$data/ybbench.conf
  cat >"$f" <<EOF
# Generated by scripts/testenv/postgres.sh at every start; edits are overwritten.
# The fixed settings are in the included file; only per-state-dir values follow.
include '$(sq "$fixed_conf")'
port = $port
unix_socket_directories = '$(sq "$pgdir")'
log_directory = '$(sq "$logdir")'
EOF
  own "$f"
  chmod 0600 "$f"
}

init_cluster() {
  # initdb into a temporary directory and rename it at the end, so that an
  # interrupted initdb never leaves a half-made cluster that `up` would try to start.
  local tmp=$data.init
  rm -rf "$tmp"
  mkdir -m 0700 "$tmp"
  own "$tmp"
  note "initdb $data (PostgreSQL $("$bin/postgres" --version | awk '{print $3}'), superuser role $db_role, OS user $os_user)"
  # The password file is owned by the server user, so initdb can read it.
  # --no-sync: this cluster runs with fsync=off anyway.
  if ! as_pg "$bin/initdb" -D "$tmp" -U "$db_role" --pwfile="$pwfile" \
      --auth-local=trust --auth-host=scram-sha-256 \
      --encoding=UTF8 --locale=C.UTF-8 --no-sync --no-instructions \
      >"$logdir/initdb.log" 2>&1; then
    tail -n 30 "$logdir/initdb.log" >&2
    die "initdb failed (log: $logdir/initdb.log)"
  fi
  cat >>"$tmp/postgresql.conf" <<'EOF'

# Added by scripts/testenv/postgres.sh: the fixed test configuration and the
# per-state-dir settings (port, socket and log directories). Last, so it wins.
include 'ybbench.conf'
EOF
  mv "$tmp" "$data"
  new_password=0  # initdb just set it
}

pid_file_pid() { [ -f "$data/postmaster.pid" ] && head -n 1 "$data/postmaster.pid"; }

# postmaster_alive: the pid file names a live postgres process (not a stale pid
# file from before a reboot whose pid now belongs to something else). Sets port
# from the pid file (line 4), which is what that server listens on.
postmaster_alive() {
  local pid p
  pid=$(pid_file_pid) || return 1
  [ -n "$pid" ] && [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = postgres ] || return 1
  if [ "$(awk '/^State:/ {print $2}' "/proc/$pid/status" 2>/dev/null)" = Z ]; then
    # A postmaster that died (crash, kill -9) stays a zombie until init reaps it,
    # and a new postmaster refuses to start while that pid exists. Bounded wait.
    note "the previous postmaster (pid $pid) died; waiting for it to be reaped"
    for _ in $(seq 1 100); do
      kill -0 "$pid" 2>/dev/null || return 1
      sleep 0.1
    done
    die "pid $pid (a dead postmaster) was not reaped within 10 s; cannot start a new server in $data"
  fi
  p=$(sed -n 4p "$data/postmaster.pid")
  [ -z "$p" ] || port=$p
}

start_server() {
  write_generated_conf
  note "starting the server on 127.0.0.1:$port"
  # -W: do not let pg_ctl wait; readiness is checked by wait_ready with pg_isready.
  # pg_ctl detaches the postmaster into its own session, with its output in startup.log.
  as_pg "$bin/pg_ctl" start -W -s -D "$data" -l "$logdir/startup.log" ||
    die "pg_ctl start failed (log: $logdir/startup.log)"
}

# wait_ready [stale_pid]: bounded wait until the server accepts connections; fail
# early when the postmaster is gone (it removes its pid file when it gives up,
# e.g. on a bad setting or a taken port) instead of waiting out the timeout.
# stale_pid: the pid in a pid file left by a server that died; until the new
# postmaster replaces that file, it says nothing about the new one.
wait_ready() {
  local stale_pid=${1:-} started=$SECONDS seen_pid=0 pid
  until "$bin/pg_isready" -q -h "$pgdir" -p "$port" -d postgres -U "$db_role"; do
    if pid=$(pid_file_pid) && [ -n "$pid" ] && [ "$pid" != "$stale_pid" ]; then
      seen_pid=1
      kill -0 "$pid" 2>/dev/null || start_failed "the postmaster (pid $pid) exited"
    elif [ $seen_pid -eq 1 ] || [ $((SECONDS - started)) -ge 15 ]; then
      start_failed "the postmaster is not running"
    fi
    [ $((SECONDS - started)) -lt $start_timeout ] || start_failed "not accepting connections after ${start_timeout}s"
    sleep 0.2
  done
}

start_failed() {
  local f
  for f in "$logdir/startup.log" "$logdir/postgresql.log"; do
    [ -f "$f" ] && { echo "--- tail of $f" >&2; tail -n 20 "$f" >&2; }
  done
  die "start failed: $1"
}

psql_admin() { "$bin/psql" -X -q -At -v ON_ERROR_STOP=1 -h "$pgdir" -p "$port" -U "$db_role" -d postgres "$@"; }

write_fragment() {
  local version
  version=$(psql_admin -c 'SHOW server_version') || die "could not query server_version over $pgdir/.s.PGSQL.$port"
  python3 - "$frag" "$port" "$db_role" "$password" "$version" "$data" "$os_user" "$bin" "$fixed_conf" <<'PY'
import json, os, sys
out, port, user, password, version, data, os_user, bin_dir, config = sys.argv[1:]
frag = {"postgres": {
    "host": "127.0.0.1",
    "port": int(port),
    "user": user,
    "password": password,
    "database": "postgres",
    "version": version,
    "data_dir": data,
    "os_user": os_user,
    "bin": bin_dir,
    "config": config,
}}
tmp = out + ".tmp"
with open(tmp, "w") as f:
    json.dump(frag, f, indent=2)
    f.write("\n")
os.replace(tmp, out)
PY
}

up() {
  choose_bin
  ensure_os_user
  ensure_dirs
  ensure_password
  if [ -f "$data/PG_VERSION" ] && postmaster_alive; then
    # Already started (by an earlier up); it may still be recovering, so wait
    # for it rather than start a second one.
    [ -n "${port:-}" ] || port=$(cat "$portfile")
    wait_ready
    note "already running on 127.0.0.1:$port (data $data)"
    [ "$(cat "$portfile" 2>/dev/null)" = "$port" ] || echo "$port" >"$portfile"
    if [ "$fixed_conf" -nt "$data/postmaster.pid" ]; then
      note "warning: $fixed_conf changed after the server started; run '$0 down $state' and 'up' again to apply it"
    fi
  else
    [ -f "$data/PG_VERSION" ] || init_cluster
    ensure_port
    check_socket_path
    local stale_pid
    stale_pid=$(pid_file_pid) || stale_pid=""
    start_server
    wait_ready "$stale_pid"
  fi
  if [ "$new_password" -eq 1 ]; then
    # The password file was lost but the cluster was not: give the role the new one.
    note "setting a new password for role $db_role (password file was missing)"
    psql_admin -c "ALTER ROLE $db_role PASSWORD '$password'" >/dev/null
  fi
  write_fragment
  note "ready: postgres://$db_role@127.0.0.1:$port/postgres (password in $pwfile)"
}

down() {
  rm -f "$frag"
  if [ ! -f "$data/PG_VERSION" ]; then
    note "no cluster in $data; nothing to stop"
    return 0
  fi
  choose_bin
  local rc=0
  as_pg "$bin/pg_ctl" status -D "$data" >/dev/null 2>&1 || rc=$?
  if [ $rc -ne 0 ]; then
    note "not running"
    return 0
  fi
  note "stopping (fast)"
  if ! as_pg "$bin/pg_ctl" stop -D "$data" -m fast -w -t 60 -s; then
    # A fast shutdown waits for a checkpoint; if even that hangs, do not leave a
    # server behind that the next `up` would mistake for a healthy one.
    note "fast shutdown did not finish; using immediate shutdown"
    as_pg "$bin/pg_ctl" stop -D "$data" -m immediate -w -t 30 -s
  fi
}

wipe() {
  down
  note "removing $pgdir"
  rm -rf "$pgdir"
}

# Serialise concurrent up/down/wipe on the same state dir (e.g. two `make testenv`).
exec 9>"$state/postgres.lock"
flock 9

case $cmd in
  up) up ;;
  down) down ;;
  wipe) wipe ;;
esac
