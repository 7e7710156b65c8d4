# ybbench postgres flavor: the server's version and non-default settings.
set -euo pipefail
cd /  # the service user may not enter the login directory
runuser -u ybbench -- /usr/lib/postgresql/15/bin/psql -X -A -t -h /runs/r1/hosts/db1/ybbench/pgs -p 5433 -U postgres -d postgres \
  -c "SELECT 'server_version=' || current_setting('server_version') UNION ALL SELECT name || '=' || setting FROM pg_settings WHERE source NOT IN ('default', 'override') ORDER BY 1"
