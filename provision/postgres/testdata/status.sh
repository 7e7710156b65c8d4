# ybbench postgres flavor: replication state on the primary, one line per standby.
set -euo pipefail
cd /  # the service user may not enter the login directory
runuser -u ybbench -- /usr/lib/postgresql/15/bin/psql -X -A -t -h /runs/r1/hosts/db1/ybbench/pgs -p 5433 -U postgres -d postgres \
  -c "SELECT application_name || ' ' || state || ' ' || sync_state FROM pg_stat_replication ORDER BY 1"
