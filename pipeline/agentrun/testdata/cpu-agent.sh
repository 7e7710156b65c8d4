# Readings of a host's counters, each one JSON line (a hostcpu.Sample):
# 86400 of them, 1 s apart, from one session, read from /proc
# only and with shell builtins where a loop runs (a database host's find
# of its processes aside), so that a reading every tick costs the host
# next to nothing, and says what it cost (its "sampler"): the machine's CPU
# (/proc/stat), its run queue, its disks (/proc/diskstats), this network
# namespace's interfaces (/proc/net/dev) and the CPU time of the tool's
# own processes here (the agent's) with the cores they may use.
set -u
hz=$(getconf CLK_TCK)
# This shell's start (stat(5) field 22, ticks after boot): with its pid, it
# tells this session's readings from another's, and so what the readings
# cost from its CPU time below.
read -r line < /proc/$$/stat || exit 1
set -- ${line##*) }
sstart=${20}
# The wait between readings, without a process of its own: a read that
# times out on a pipe this shell holds both ends of (sleep where that
# pipe cannot be opened).
if { exec 9<> <(:); } 2>/dev/null; then
  nap() { read -r -t "$1" -u 9 _ || :; }
else
  nap() { sleep "$1"; }
fi
n=0
while [ "$n" -lt 86400 ]; do
# The processes of this network namespace, tested by the shell itself
# (-ef: the same namespace inode) rather than by a find of each reading.
pids=
for f in /proc/[0-9]*/ns/net; do
  [ "$f" -ef /proc/$$/ns/net ] && pids="$pids $f"
done
own=0 procs=0 threads=0 first=
for p in $pids; do
  p=${p#/proc/}; p=${p%%/*}
  read -r comm 2>/dev/null < "/proc/$p/comm" || continue
  [ "$comm" = ybload ] || continue
  # stat(5): the name (2) in parentheses, the state (3), utime stime
  # cutime cstime (14-17), num_threads (20), read into their names; a name
  # with a blank in it moves the fields, and is read again, split after
  # its last parenthesis (field N is then $((N-2))): a split of every line
  # cost three times the read.
  read -r _ name state _ _ _ _ _ _ _ _ _ _ utime stime cutime cstime _ _ nthreads _ 2>/dev/null < "/proc/$p/stat" || continue
  case $name$state in
  *')'[A-Za-z]) ;;
  *)
    read -r line 2>/dev/null < "/proc/$p/stat" || continue
    set -- ${line##*) }
    utime=${12} stime=${13} cutime=${14} cstime=${15} nthreads=${18} ;;
  esac
  own=$((own + utime + stime + cutime + cstime)) procs=$((procs + 1)) threads=$((threads + nthreads))
  [ -n "$first" ] || first=$p
done
# The cores the first of them may use: its affinity, and the CPU quota of
# its cgroup (v1 cpu or v2 cpu.max; the leaf only), with the periods the
# quota was enforced in and those it ran out in (its cpu.stat): a group
# throttled in most of them was held by its quota even where the CPU time
# it got reads below it.
allowed= quota= stat= periods=0 throttled=0
if [ -n "$first" ]; then
  while IFS=: read -r k v; do
    [ "$k" = Cpus_allowed_list ] && allowed=${v##*[[:space:]]}
  done < "/proc/$first/status"
  while IFS=: read -r _ ctl path; do
    case ",$ctl," in
    *,cpu,*) for d in /sys/fs/cgroup/cpu /sys/fs/cgroup/cpu,cpuacct /sys/fs/cgroup/cpuacct,cpu; do
        if [ -r "$d$path/cpu.cfs_quota_us" ]; then
          read -r q < "$d$path/cpu.cfs_quota_us"; read -r per < "$d$path/cpu.cfs_period_us"; quota="$q $per" stat=$d$path/cpu.stat; break
        fi
      done ;;
    ,,) for d in /sys/fs/cgroup /sys/fs/cgroup/unified; do
        if [ -r "$d$path/cpu.max" ]; then read -r q per < "$d$path/cpu.max"; quota="$q $per" stat=$d$path/cpu.stat; break; fi
      done ;;
    esac
  done < "/proc/$first/cgroup"
  if [ -n "$stat" ] && [ -r "$stat" ]; then
    while read -r k v; do
      case $k in nr_periods) periods=$v ;; nr_throttled) throttled=$v ;; esac
    done < "$stat"
  fi
fi
cores=0 rq=0 node=
while read -r k a b c d e f g h _; do
  case $k in
  cpu) node="$a,$b,$c,$d,$e,$f,$g,$h" ;;
  cpu[0-9]*) cores=$((cores + 1)) ;;
  procs_running) rq=$a ;;
  esac
done < /proc/stat
IFS=, read -r user nice system idle iowait irq softirq steal <<EOF
$node
EOF
disks=
while read -r _ _ name _ _ rs _ _ _ ws _ _ ticks _; do
  case $name in loop*|ram*|zram*) continue ;; esac
  disks="$disks${disks:+,}{\"name\":\"$name\",\"read_sectors\":$rs,\"write_sectors\":$ws,\"io_ticks_ms\":$ticks}"
done < /proc/diskstats
nets=
while IFS=: read -r name rest; do
  case $rest in '') continue ;; esac
  name=${name##* }
  [ "$name" = lo ] && continue
  set -- $rest
  nets="$nets${nets:+,}{\"name\":\"$name\",\"rx_bytes\":$1,\"rx_packets\":$2,\"tx_bytes\":$9,\"tx_packets\":${10}}"
done < /proc/net/dev
# This host shares the machine's kernel (a local host), and so its
# /proc/stat: its CPU is its own processes' time.
mode=process busy=$own total=0
# What reading has cost this shell so far: its own CPU time and its
# reaped children's (a database host's find of each reading), fields 14
# to 17.
read -r line < /proc/$$/stat
set -- ${line##*) }
sticks=$((${12} + ${13} + ${14} + ${15}))
# The time without a process of its own where bash has it (5.0 and
# later; a comma in some locales).
at=${EPOCHREALTIME:-}
[ -n "$at" ] || at=$(date +%s.%N)
at=${at/,/.}
printf '{"mode":"%s","busy_ticks":%d,"total_ticks":%d,"hz":%d,"cores":%d,"at":%s,"sampler":{"pid":%d,"start":%d,"ticks":%d},' \
  "$mode" "$busy" "$total" "$hz" "$cores" "$at" "$$" "$sstart" "$sticks"
printf '"node":{"user":%d,"nice":%d,"system":%d,"idle":%d,"iowait":%d,"irq":%d,"softirq":%d,"steal":%d},"procs_running":%d,' \
  "$user" "$nice" "$system" "$idle" "$iowait" "$irq" "$softirq" "$steal" "$rq"
printf '"own":{"busy_ticks":%d,"procs":%d,"threads":%d,"cpus_allowed":"%s","cpu_quota":"%s","cpu_periods":%d,"cpu_throttled":%d},"disks":[%s],"nets":[%s]}\n' \
  "$own" "$procs" "$threads" "$allowed" "$quota" "$periods" "$throttled" "$disks" "$nets"
n=$((n + 1))
[ "$n" -ge 86400 ] || nap 1
done
