# ybbench postgres flavor: prepare a db host (db1).
# The server runs as ybbench; everything lives under /runs/r1/hosts/db1/postgres.
set -euo pipefail
cd /  # the service user may not enter the login directory
bin=""
for d in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r); do
  if [ -x "$d/postgres" ]; then bin=$d; break; fi
done
if [ -z "$bin" ]; then
  echo "PostgreSQL is not installed on this machine; install it first (scripts/setup.sh installs Debian's postgresql)" >&2
  exit 3
fi
if ! id -u ybbench >/dev/null 2>&1; then
  echo "the service user ybbench does not exist on this machine (the local provider creates it)" >&2
  exit 3
fi
mkdir -p /runs/r1/hosts/db1/postgres/run /runs/r1/hosts/db1/postgres/log /tmp/ybbpg-9238e062f4
chown ybbench /runs/r1/hosts/db1/postgres /runs/r1/hosts/db1/postgres/run /runs/r1/hosts/db1/postgres/log /tmp/ybbpg-9238e062f4
chmod 0700 /runs/r1/hosts/db1/postgres
# Directories above the data may belong to root: the server only needs to pass through them.
d=$(dirname /runs/r1/hosts/db1/postgres); while [ "$d" != / ]; do chmod o+x "$d" 2>/dev/null || true; d=$(dirname "$d"); done
echo "bin=$bin"
"$bin/postgres" --version
