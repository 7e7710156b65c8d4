set -u
if ! command -v cloud-init >/dev/null 2>&1; then
  printf 'ybbench-cloud-init\tmissing\n'
  exit 0
fi
rc=0
timeout -k 10 900 cloud-init status --wait --long 2>&1 || rc=$?
if [ "$rc" -eq 124 ]; then
  echo
  timeout 60 cloud-init status --long 2>&1 || true
fi
printf '\nybbench-cloud-init\texit\t%d\n' "$rc"
