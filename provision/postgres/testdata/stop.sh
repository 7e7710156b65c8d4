# ybbench postgres flavor: stop the server on db1 (idempotent).
set -euo pipefail
cd /  # the service user may not enter the login directory
pgdata=/runs/r1/hosts/db1/postgres/data
bin=""
for d in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r); do bin=$d; break; done
if [ -n "$bin" ] && [ -f "$pgdata/postmaster.pid" ]; then
  runuser -u ybbench -- "$bin/pg_ctl" -D "$pgdata" -m fast -w -t 60 stop >/dev/null 2>&1 || true
fi
if [ -f "$pgdata/postmaster.pid" ]; then
  pid=$(head -1 "$pgdata/postmaster.pid")
  if kill -0 "$pid" 2>/dev/null; then kill -KILL "$pid"; fi
fi
rm -f /runs/r1/hosts/db1/postgres/run/postgres.pid
