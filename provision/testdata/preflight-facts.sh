set -u
printf 'kernel\t%s\n' "$(uname -r)"
printf 'arch\t%s\n' "$(uname -m)"
printf 'cpus\t%s\n' "$(nproc)"
printf 'mem_kb\t%s\n' "$(awk '/^MemTotal:/ {print $2}' /proc/meminfo)"
printf 'os\t%s\n' "$(. /etc/os-release 2>/dev/null; echo "${PRETTY_NAME:-}")"
printf 'nofile\t%s\n' "$(ulimit -n)"
printf 'nproc\t%s\n' "$(ulimit -u)"
for p in /opt/ybbench /mnt/d0/ybbench '/mnt/d1/it'\''s'; do
  d=$p
  while [ ! -e "$d" ]; do d=$(dirname -- "$d"); done
  avail=$(df -Pk -- "$d" | awk 'NR==2 {print $4}')
  printf 'disk\t%s\t%s\t%s\n' "${avail:-unknown}" "$d" "$p"
done
