# The node's own /proc/stat, as the seeds' "CPU (User + Sys)" column is.
set -u
read -r _ user nice system idle iowait irq softirq steal _ < /proc/stat
printf '{"mode":"node","busy_ticks":%d,"total_ticks":%d,"hz":%d,"cores":%d,"at":%s}\n' \
  "$((user + nice + system))" "$((user + nice + system + idle + iowait + irq + softirq + steal))" \
  "$(getconf CLK_TCK)" "$(nproc)" "$(date +%s.%N)"
