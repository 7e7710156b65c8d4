# ybbench postgres flavor: the primary on db1.
# Passwords arrive in the environment (YB_DB_PASSWORD, YB_REPL_PASSWORD), never in this text.
set -euo pipefail
cd /  # the service user may not enter the login directory
bin=/usr/lib/postgresql/15/bin
pgdata=/runs/r1/hosts/db1/postgres/data
as_pg() { runuser -u ybbench -- "$@"; }
if [ ! -f "$pgdata/PG_VERSION" ]; then
  as_pg "$bin/initdb" -D "$pgdata" -U postgres --auth-local=trust --auth-host=scram-sha-256 -E UTF8 --locale=C >/runs/r1/hosts/db1/postgres/log/initdb.log
fi
cat >"$pgdata/ybbench.conf" <<'CONF'
hot_standby = on
listen_addresses = '10.213.0.2'
logging_collector = off
max_connections = 300
max_wal_senders = 10
port = 5433
shared_buffers = '256MB'
synchronous_commit = on
unix_socket_directories = '/tmp/ybbpg-9238e062f4'
wal_keep_size = '512MB'
wal_level = replica
CONF
grep -q "^include = 'ybbench.conf'" "$pgdata/postgresql.conf" || echo "include = 'ybbench.conf'" >>"$pgdata/postgresql.conf"
cat >"$pgdata/pg_hba.conf" <<'HBA'
local all all trust
host replication repl 0.0.0.0/0 scram-sha-256
host all all 0.0.0.0/0 scram-sha-256
HBA
chown ybbench "$pgdata/ybbench.conf" "$pgdata/pg_hba.conf"
if ! as_pg "$bin/pg_ctl" -D "$pgdata" status >/dev/null 2>&1; then
  as_pg "$bin/pg_ctl" -D "$pgdata" -l /runs/r1/hosts/db1/postgres/log/postgresql.log -w -t 120 start >/dev/null ||
    { echo "the server did not start; the end of its log:" >&2; tail -n 15 /runs/r1/hosts/db1/postgres/log/postgresql.log >&2; exit 1; }
fi
psql() { as_pg "$bin/psql" -X -q -v ON_ERROR_STOP=1 -h /tmp/ybbpg-9238e062f4 -p 5433 -U postgres -d postgres "$@"; }
psql <<'SQL'
\getenv pw YB_DB_PASSWORD
\getenv rpw YB_REPL_PASSWORD
SELECT format('CREATE ROLE %I LOGIN SUPERUSER', 'ybbench') WHERE NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'ybbench') \gexec
ALTER ROLE ybbench PASSWORD :'pw';
SELECT 'CREATE ROLE repl LOGIN REPLICATION' WHERE NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'repl') \gexec
ALTER ROLE repl PASSWORD :'rpw';
SELECT format('CREATE DATABASE %I OWNER %I', 'ycsb', 'ybbench') WHERE NOT EXISTS (SELECT 1 FROM pg_database WHERE datname = 'ycsb') \gexec
SQL
echo $(cat "$pgdata/postmaster.pid" | head -1) >/runs/r1/hosts/db1/postgres/run/postgres.pid
