# ybbench postgres flavor: a streaming replica on db2 of 10.213.0.2.
# The replication password arrives in the environment (YB_REPL_PASSWORD).
set -euo pipefail
cd /  # the service user may not enter the login directory
bin=/usr/lib/postgresql/15/bin
pgdata=/runs/r1/hosts/db2/postgres/data
as_pg() { runuser -u ybbench -- "$@"; }
passfile=/runs/r1/hosts/db2/postgres/pgpass
umask 077
printf '%s:%s:*:repl:%s\n' 10.213.0.2 5433 "$YB_REPL_PASSWORD" >"$passfile"
chown ybbench "$passfile"
if [ ! -f "$pgdata/PG_VERSION" ]; then
  # A base backup is retried (twice, 3 s apart): each failure is reported,
  # and only the last one fails the step.
  for attempt in 1 2 3; do
    rm -rf "$pgdata"
    if as_pg env PGPASSFILE="$passfile" "$bin/pg_basebackup" -h 10.213.0.2 -p 5433 -U repl -D "$pgdata" -X stream -c fast >/runs/r1/hosts/db2/postgres/log/basebackup.log 2>&1; then
      break
    fi
    echo "pg_basebackup from 10.213.0.2 failed (attempt $attempt):" >&2
    tail -n 15 /runs/r1/hosts/db2/postgres/log/basebackup.log >&2
    [ "$attempt" -lt 3 ] || exit 1
    sleep 3
  done
fi
cat >"$pgdata/ybbench.conf" <<'CONF'
hot_standby = on
listen_addresses = '10.213.0.2'
logging_collector = off
primary_conninfo = 'host=10.213.0.2 port=5433 user=repl passfile=/runs/r1/hosts/db2/postgres/pgpass application_name=db2'
CONF
grep -q "^include = 'ybbench.conf'" "$pgdata/postgresql.conf" || echo "include = 'ybbench.conf'" >>"$pgdata/postgresql.conf"
touch "$pgdata/standby.signal"
chown ybbench "$pgdata/ybbench.conf" "$pgdata/standby.signal"
if ! as_pg "$bin/pg_ctl" -D "$pgdata" status >/dev/null 2>&1; then
  as_pg "$bin/pg_ctl" -D "$pgdata" -l /runs/r1/hosts/db2/postgres/log/postgresql.log -w -t 120 start >/dev/null ||
    { echo "the server did not start; the end of its log:" >&2; tail -n 15 /runs/r1/hosts/db2/postgres/log/postgresql.log >&2; exit 1; }
fi
echo $(cat "$pgdata/postmaster.pid" | head -1) >/runs/r1/hosts/db2/postgres/run/postgres.pid
