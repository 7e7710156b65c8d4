# ybbench postgres flavor: once the replicas stream, make commits wait for a
# quorum of them. Turned on only now: with it on, the primary's own setup
# (roles, database) would wait for standbys that do not exist yet.
set -euo pipefail
cd /  # the service user may not enter the login directory
pgdata=/runs/r1/hosts/db1/postgres/data
cat >"$pgdata/ybbench-quorum.conf" <<'CONF'
synchronous_standby_names = 'ANY 1 ("db-2", "db-3")'
CONF
chown ybbench "$pgdata/ybbench-quorum.conf"
grep -q "^include_if_exists = 'ybbench-quorum.conf'" "$pgdata/postgresql.conf" ||
  echo "include_if_exists = 'ybbench-quorum.conf'" >>"$pgdata/postgresql.conf"
runuser -u ybbench -- /usr/lib/postgresql/15/bin/pg_ctl -D "$pgdata" reload >/dev/null
