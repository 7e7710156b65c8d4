#!/usr/bin/env bash
# hosts.sh — the hosts of one ybbench run on this machine: a Linux bridge in the
# root network namespace, and per host a network namespace on that bridge
# running its own OpenSSH server. terraform/local calls it from terraform_data
# provisioners; it also works by hand (it is the command `ybbench down` prints
# when a teardown could not finish).
#
#   hosts.sh up    --run-id ID --run-dir DIR [--subnet CIDR] [--bridge NAME]
#                  [--pubkey KEY | --pubkey-file FILE] [--host NAME=ADDRESS]...
#       Without --host: checks the machine (root, commands, subnet free), creates
#       the service user and the bridge. With --host: also makes those hosts
#       (the network must be up). Idempotent: a host that answers is left alone.
#   hosts.sh down  --run-id ID --run-dir DIR [--subnet CIDR] [--bridge NAME]
#                  (--host NAME=ADDRESS... | --all)
#       Removes those hosts, or with --all everything of the run: every sshd of
#       its pid files, every process in its namespaces, the namespaces, veths and
#       the bridge. Idempotent. Prints what could not be removed and exits 1.
#   hosts.sh names --run-id ID [--host NAME=ADDRESS]... [--subnet CIDR]
#       Prints the names derived for the run (needs no root; tests compare them
#       with the Go side).
#
# Names: R = the first 8 hex digits of sha256(run id). Bridge yb<R>br (unless
# --bridge), namespaces yb<R>-<host>, host-side veths yb<R>v<n> where n is the
# host's offset in the subnet in hex: all within Linux's 15-character limit
# for interfaces, and unique per run.
#
# Files: runs/<id>/hosts/<name>/ holds everything of a host; ssh/ its sshd
# (sshd_config, ssh_host_ed25519_key, authorized_keys, sshd.pid, sshd.log);
# data/, conf/, logs/, pids/, agent/ are left for the flavors and agents.
#
# Processes are found only through pid files and namespace membership
# (`ip netns pids`), never by matching names.
#
# Exit codes: 0 ok, 1 failure (or something could not be removed), 2 bad
# arguments or an unusable machine (not root, missing commands, subnet in use).
set -euo pipefail

# Terraform and `ip netns exec` pass on the caller's PATH, which may lack sbin.
PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin:$PATH
umask 022

prog=hosts.sh
service_user=ybbench
sshd_bin=/usr/sbin/sshd
default_subnet=10.213.0.0/24
ready_timeout=15 # seconds for a new sshd to answer

say() { echo "$prog: $*"; }
warn() { echo "$prog: warning: $*" >&2; }
die() { echo "$prog: error: $*" >&2; exit 1; }
bad() { echo "$prog: error: $*" >&2; exit 2; }
usage() {
  sed -n '2,/^# Exit codes/p' "$0" | sed -e 's/^# \{0,1\}//' >&2
  exit 2
}

# ---- arguments -------------------------------------------------------------

[ $# -ge 1 ] || usage
cmd=$1
shift
case $cmd in up | down | names) ;; -h | --help | help) usage ;; *) bad "unknown command '$cmd' (up, down, names)" ;; esac

run_id='' run_dir='' subnet=$default_subnet bridge='' pubkey='' pubkey_file='' all=0
hosts=()
while [ $# -gt 0 ]; do
  opt=$1
  case $opt in
  --all) all=1; shift; continue ;;
  --run-id | --run-dir | --subnet | --bridge | --pubkey | --pubkey-file | --host) ;;
  *) bad "unknown option '$opt'" ;;
  esac
  [ $# -ge 2 ] || bad "$opt needs a value"
  case $opt in
  --run-id) run_id=$2 ;;
  --run-dir) run_dir=$2 ;;
  --subnet) subnet=$2 ;;
  --bridge) bridge=$2 ;;
  --pubkey) pubkey=$2 ;;
  --pubkey-file) pubkey_file=$2 ;;
  --host) hosts+=("$2") ;;
  esac
  shift 2
done

[[ $run_id =~ ^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$ ]] ||
  bad "--run-id '$run_id': want 1-64 characters of letters, digits, '.', '_', '-'"
if [ "$cmd" != names ]; then
  [[ $run_dir == /* ]] || bad "--run-dir '$run_dir' must be an absolute path"
fi
if [ "$cmd" = down ]; then
  if [ $all -eq 1 ] && [ ${#hosts[@]} -gt 0 ]; then bad "down: --all and --host exclude each other"; fi
  if [ $all -eq 0 ] && [ ${#hosts[@]} -eq 0 ]; then bad "down: say which hosts (--host NAME=ADDRESS) or --all"; fi
fi

hash=$(printf '%s' "$run_id" | sha256sum | cut -c1-8)
prefix=yb$hash
[ -n "$bridge" ] || bridge=${prefix}br
[[ $bridge =~ ^[A-Za-z0-9][A-Za-z0-9_.-]{0,14}$ ]] ||
  bad "--bridge '$bridge': an interface name of at most 15 letters, digits, '_', '.', '-'"

# ---- IPv4 arithmetic ---------------------------------------------------------

ip2int() { # a.b.c.d -> integer, or fail
  local IFS=. a b c d
  [[ $1 =~ ^[0-9]{1,3}\.[0-9]{1,3}\.[0-9]{1,3}\.[0-9]{1,3}$ ]] || return 1
  read -r a b c d <<<"$1"
  ((10#$a < 256 && 10#$b < 256 && 10#$c < 256 && 10#$d < 256)) || return 1
  echo $(((10#$a << 24) | (10#$b << 16) | (10#$c << 8) | 10#$d))
}
int2ip() { echo "$((($1 >> 24) & 255)).$((($1 >> 16) & 255)).$((($1 >> 8) & 255)).$(($1 & 255))"; }
mask() { echo $(((0xffffffff << (32 - $1)) & 0xffffffff)); } # prefix length -> netmask

# The subnet: IPv4, /16 to /30 (a host's veth name holds its offset in at most
# 4 hex digits), aligned, and not an address range the machine gives meaning to.
[[ $subnet =~ ^([0-9.]+)/([0-9]{1,2})$ ]] || bad "--subnet '$subnet': want an IPv4 CIDR such as $default_subnet"
net_ip=${BASH_REMATCH[1]}
plen=$((10#${BASH_REMATCH[2]}))
net=$(ip2int "$net_ip") || bad "--subnet '$subnet': '$net_ip' is not an IPv4 address"
((plen >= 16 && plen <= 30)) || bad "--subnet '$subnet': the prefix length must be 16 to 30"
if (((net & $(mask "$plen")) != net)); then
  bad "--subnet '$subnet' has host bits set; did you mean $(int2ip $((net & $(mask "$plen"))))/$plen?"
fi
size=$((1 << (32 - plen)))
case $((net >> 24)) in
0 | 127 | 22[4-9] | 23[0-9] | 24[0-9] | 25[0-5]) bad "--subnet '$subnet' is not usable for hosts (this, loopback, multicast or reserved range)" ;;
esac
if (((net >> 16) == (169 << 8 | 254))); then bad "--subnet '$subnet' is link-local"; fi
gateway_int=$((net + 1))
gateway=$(int2ip "$gateway_int")

# Hosts: NAME=ADDRESS, ADDRESS inside the subnet, neither its network, gateway
# (the bridge) nor broadcast address.
host_names=() host_addrs=() host_offsets=()
for h in "${hosts[@]}"; do
  [[ $h =~ ^([a-z0-9]([a-z0-9-]{0,30}[a-z0-9])?)=([0-9.]+)$ ]] ||
    bad "--host '$h': want NAME=ADDRESS, NAME of 1-32 lowercase letters, digits and '-'"
  name=${BASH_REMATCH[1]}
  addr=${BASH_REMATCH[3]}
  a=$(ip2int "$addr") || bad "--host '$h': '$addr' is not an IPv4 address"
  off=$((a - net))
  ((off >= 2 && off < size - 1)) || bad "--host '$h': $addr is not a host address of $subnet past the bridge's $gateway"
  for n in "${host_names[@]}"; do [ "$n" != "$name" ] || bad "--host '$h': name given twice"; done
  host_names+=("$name")
  host_addrs+=("$addr")
  host_offsets+=("$off")
done

ns_of() { echo "$prefix-$1"; }                # host name -> namespace
veth_of() { printf '%sv%x\n' "$prefix" "$1"; } # subnet offset -> host-side veth
host_dir() { echo "$run_dir/hosts/$1"; }

if [ "$cmd" = names ]; then
  echo "prefix $prefix"
  echo "bridge $bridge"
  echo "gateway $gateway"
  for i in "${!host_names[@]}"; do
    echo "host ${host_names[$i]} ${host_addrs[$i]} $(ns_of "${host_names[$i]}") $(veth_of "${host_offsets[$i]}")"
  done
  exit 0
fi

# ---- machine checks ----------------------------------------------------------

[ "$(id -u)" -eq 0 ] ||
  bad "must run as root: local hosts are network namespaces on a bridge, each with its own sshd (try: sudo $0 $cmd ...)"

# require_commands: everything hosts.sh and the flavors on local hosts rely on,
# checked once, reported together with the Debian packages that provide them.
require_commands() {
  local missing=() pkgs=() entry c p
  for entry in "$sshd_bin:openssh-server" ssh-keygen:openssh-client ip:iproute2 ss:iproute2 \
    jq:jq useradd:passwd getent:libc-bin flock:util-linux runuser:util-linux \
    sha256sum:coreutils timeout:coreutils; do
    c=${entry%%:*} p=${entry##*:}
    if [[ $c == /* ]]; then [ -x "$c" ] && continue; else command -v "$c" >/dev/null && continue; fi
    missing+=("$c ($p)")
    [[ " ${pkgs[*]} " == *" $p "* ]] || pkgs+=("$p")
  done
  if [ ${#missing[@]} -gt 0 ]; then
    bad "missing commands: ${missing[*]}; install with: apt-get install -y ${pkgs[*]} (or run scripts/setup.sh)"
  fi
}

# check_subnet refuses a subnet that overlaps any route of the machine (every
# table, so local addresses count too), except the routes of this run's own
# bridge: `up` is re-run on a live run.
check_subnet() {
  local routes dst dev type table rnet rlen rint m conflicts=()
  routes=$(ip -j -4 route show table all) || die "cannot list routes (ip -j -4 route show table all)"
  while IFS=$'\t' read -r dst dev type table; do
    [ "$dst" != default ] || continue
    [ "$dev" != "$bridge" ] || continue
    if [[ $dst == */* ]]; then rnet=${dst%/*} rlen=${dst#*/}; else rnet=$dst rlen=32; fi
    rint=$(ip2int "$rnet") || continue
    # Two prefixes overlap when they agree on the shorter one's bits.
    m=$(mask $((rlen < plen ? rlen : plen)))
    if (((rint & m) == (net & m))); then
      conflicts+=("$dst dev $dev ($type, table $table)")
    fi
  done < <(jq -r '.[] | [.dst, (.dev // "-"), (.type // "unicast"), (.table // "main")] | @tsv' <<<"$routes")
  if [ ${#conflicts[@]} -gt 0 ]; then
    local list
    list=$(printf '%s; ' "${conflicts[@]}")
    bad "subnet $subnet overlaps routes of this machine: ${list%; }; choose another subnet (e.g. --subnet 10.213.<n>.0/24, or the local provider's option subnet)"
  fi
}

# ensure_user creates the unprivileged user database servers run as, once for
# all hosts (they share /etc/passwd). The lock serialises runs starting together.
ensure_user() {
  getent passwd "$service_user" >/dev/null && return 0
  (
    flock -w 60 9 || die "timed out waiting for /run/ybbench-useradd.lock"
    getent passwd "$service_user" >/dev/null ||
      useradd --system --user-group --no-create-home --home-dir /nonexistent \
        --shell /usr/sbin/nologin --comment "ybbench database servers" "$service_user"
  ) 9>/run/ybbench-useradd.lock
  getent passwd "$service_user" >/dev/null || die "could not create the user $service_user"
  say "created system user $service_user"
}

# ---- processes ---------------------------------------------------------------

# alive PID: the process exists and is not a zombie. An exited daemon stays a
# zombie until its reaper (pid 1, which in containers may reap slowly) collects
# it; it holds no sockets or files any more, so it counts as gone.
alive() {
  local stat
  stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
  stat=${stat##*) }
  [ "${stat%% *}" != Z ]
}

# our_sshd PID CONFIG: the pid is an sshd started with our config. sshd rewrites
# its command line (setproctitle), so the config path is matched inside it.
our_sshd() {
  local comm cmdline
  comm=$(cat "/proc/$1/comm" 2>/dev/null) || return 1
  [ "$comm" = sshd ] || return 1
  cmdline=$(tr '\0' ' ' <"/proc/$1/cmdline" 2>/dev/null) || return 1
  [[ $cmdline == *"$2"* ]]
}

# stop_pids PID...: TERM, wait up to 5 s, then KILL what is left and wait up
# to 2 s more (a process in uninterruptible sleep may take a moment to go).
stop_pids() {
  local p left=("$@") next i
  kill -TERM "$@" 2>/dev/null || true
  for i in $(seq 70); do
    next=()
    for p in "${left[@]}"; do alive "$p" && next+=("$p"); done
    [ ${#next[@]} -gt 0 ] || return 0
    left=("${next[@]}")
    [ "$i" -ne 50 ] || kill -KILL "${left[@]}" 2>/dev/null || true
    sleep 0.1
  done
}

# stop_sshd NAME: stop the host's sshd through its pid file.
stop_sshd() {
  local d pidfile pid
  d=$(host_dir "$1")/ssh
  pidfile=$d/sshd.pid
  [ -f "$pidfile" ] || return 0
  pid=$(<"$pidfile") || return 0
  if [[ $pid =~ ^[0-9]+$ ]] && alive "$pid" && our_sshd "$pid" "$d/sshd_config"; then
    stop_pids "$pid"
  fi
  alive "$pid" 2>/dev/null && our_sshd "$pid" "$d/sshd_config" && return 0 # reported by the caller
  rm -f "$pidfile"
}

# kill_namespace NS: every process left in the namespace (database servers,
# agents, shells of open sessions).
kill_namespace() {
  local pids
  pids=$(ip netns pids "$1" 2>/dev/null | tr '\n' ' ') || return 0
  [ -n "${pids// /}" ] || return 0
  # shellcheck disable=SC2086
  stop_pids $pids
}

ns_exists() { [ -e "/run/netns/$1" ]; }

# remove_namespace NS: delete it, unless processes survived kill_namespace:
# deleting the name would leave them running unseen in an anonymous
# namespace, so the namespace stays, and is reported with its processes.
remove_namespace() {
  [ -z "$(ip netns pids "$1" 2>/dev/null)" ] || return 0
  ip netns del "$1" 2>/dev/null || true
}
link_exists() { ip link show dev "$1" >/dev/null 2>&1; }

# ---- one host ----------------------------------------------------------------

write_sshd_config() { # NAME ADDRESS
  local d
  d=$(host_dir "$1")/ssh
  cat >"$d/sshd_config.tmp" <<EOF
# sshd of host $1 of ybbench run $run_id, written by hosts.sh.
# It runs in network namespace $(ns_of "$1") and reads no other configuration.
ListenAddress $2:22
HostKey $d/ssh_host_ed25519_key
PidFile $d/sshd.pid
# Only the run's key, and only for root: the orchestrator logs in as root on
# local hosts (they are this machine), and nobody else logs in to them.
AuthorizedKeysFile $d/authorized_keys
AuthorizedPrincipalsFile none
AuthorizedKeysCommand none
AllowUsers root
PermitRootLogin prohibit-password
PubkeyAuthentication yes
PasswordAuthentication no
KbdInteractiveAuthentication no
HostbasedAuthentication no
UsePAM no
# The run directory may sit below a world-writable directory (/tmp in tests),
# which StrictModes rejects wherever the key file is; hosts.sh writes the key
# files itself with modes 0600/0700.
StrictModes no
PermitUserEnvironment no
# Sessions start at shell level 1, so that root's login bash runs the command
# without reading ~/.bashrc: Debian's bash reads it for a command sshd starts
# only at the top level. The hosts share this machine's root account, whose
# rc file is a person's interactive setup (one running pyenv init cost every
# SSH command 0.14 s of CPU, and the 30 commands of a 30-host stage 4 s); a
# server's rc file does nothing for a command. PATH is sshd's default then.
SetEnv SHLVL=1
X11Forwarding no
AllowAgentForwarding no
# The readiness checks dial database ports from the host through the SSH
# connection (direct-tcpip); nothing is forwarded the other way.
AllowTcpForwarding local
PrintMotd no
UseDNS no
# The orchestrator multiplexes many sessions over one connection per host
# (fan-out steps, agents' status streams) and opens connections in bursts.
MaxSessions 64
MaxStartups 64:30:256
ClientAliveInterval 15
ClientAliveCountMax 4
Subsystem sftp internal-sftp
LogLevel INFO
EOF
  mv "$d/sshd_config.tmp" "$d/sshd_config"
}

# answers ADDRESS: an SSH banner comes back from ADDRESS:22 within a second.
answers() {
  # shellcheck disable=SC2016 # the inner script expands its own $1
  timeout 1 bash -c 'exec 3<>"/dev/tcp/$1/22" && IFS= read -r -t 1 line <&3 && [[ $line == SSH-* ]]' _ "$1" 2>/dev/null
}

host_is_up() { # NAME ADDRESS
  local pid d
  d=$(host_dir "$1")/ssh
  ns_exists "$(ns_of "$1")" && [ -f "$d/sshd.pid" ] || return 1
  pid=$(<"$d/sshd.pid")
  [[ $pid =~ ^[0-9]+$ ]] && alive "$pid" && our_sshd "$pid" "$d/sshd_config" && answers "$2"
}

# rollback state for the EXIT trap: what this invocation created and must
# remove if it fails half-way.
rollback_host='' rollback_offset='' rollback_bridge=0
on_exit() {
  local rc=$?
  [ $rc -ne 0 ] || return 0
  if [ -n "$rollback_host" ]; then
    warn "removing the half-made host $rollback_host"
    remove_host "$rollback_host" "$rollback_offset" >/dev/null 2>&1 || true
  fi
  if [ "$rollback_bridge" -eq 1 ]; then
    warn "removing the bridge $bridge this attempt created"
    ip link del "$bridge" >/dev/null 2>&1 || true
  fi
  exit $rc
}
trap on_exit EXIT

make_host() { # NAME ADDRESS OFFSET
  local name=$1 addr=$2 off=$3 ns veth dir pid out
  ns=$(ns_of "$name")
  veth=$(veth_of "$off")
  dir=$(host_dir "$name")
  if host_is_up "$name" "$addr"; then
    say "$name: already up at $addr (namespace $ns)"
    return 0
  fi
  # Leftovers of an earlier attempt (a host whose sshd died, a half-made one).
  if ! out=$(remove_host "$name" "$off"); then
    die "$name: cannot remove what an earlier attempt left: $(echo "$out" | tr '\n' ' ')"
  fi
  rollback_host=$name rollback_offset=$off

  ip netns add "$ns"
  # The peer is created directly inside the namespace as eth0: no clash with
  # the root namespace's own eth0, no rename step.
  ip link add "$veth" type veth peer name eth0 netns "$ns"
  ip link set "$veth" master "$bridge" up
  ip -n "$ns" link set lo up
  ip -n "$ns" addr add "$addr/$plen" dev eth0
  ip -n "$ns" link set eth0 up
  ip -n "$ns" route add default via "$gateway" dev eth0
  # The bridge may still map the address to the MAC of an earlier eth0 (a
  # host removed and made again, as a re-run up does): frames would go to a
  # MAC nobody has until the entry fails, about half a minute.
  ip neigh flush to "$addr" dev "$bridge" 2>/dev/null || true

  mkdir -p "$dir"/{data,conf,logs,pids,agent}
  mkdir -p "$dir/ssh"
  chmod 0700 "$dir/ssh"
  if [ ! -s "$dir/ssh/ssh_host_ed25519_key" ]; then
    rm -f "$dir/ssh/ssh_host_ed25519_key" "$dir/ssh/ssh_host_ed25519_key.pub"
    ssh-keygen -q -t ed25519 -N '' -C "ybbench-$run_id-$name" -f "$dir/ssh/ssh_host_ed25519_key"
  fi
  (umask 077 && printf '%s\n' "$pubkey" >"$dir/ssh/authorized_keys.tmp")
  mv "$dir/ssh/authorized_keys.tmp" "$dir/ssh/authorized_keys"
  write_sshd_config "$name" "$addr"
  rm -f "$dir/ssh/sshd.pid"
  # sshd binds before it detaches, so a port or config problem fails here.
  ip netns exec "$ns" "$sshd_bin" -f "$dir/ssh/sshd_config" -E "$dir/ssh/sshd.log" ||
    die "$name: sshd did not start; see $dir/ssh/sshd.log: $(tail -n 3 "$dir/ssh/sshd.log" 2>/dev/null | tr '\n' ' ')"
  # The deadline is the clock's: a probe that hangs its full second counts.
  local deadline=$((SECONDS + ready_timeout))
  while ((SECONDS < deadline)); do
    if [ -s "$dir/ssh/sshd.pid" ] && answers "$addr"; then
      pid=$(<"$dir/ssh/sshd.pid")
      rollback_host=''
      say "$name: up at $addr (namespace $ns, veth $veth, sshd pid $pid)"
      return 0
    fi
    sleep 0.1
  done
  die "$name: sshd in $ns does not answer on $addr:22 after ${ready_timeout}s; see $dir/ssh/sshd.log"
}

# remove_host NAME OFFSET: stop its sshd, every process in its namespace, the
# namespace (which takes eth0 and so the veth pair with it), and the veth if it
# survived. Prints what remains; returns 1 then.
remove_host() {
  local name=$1 off=$2 ns veth d pid remains=()
  ns=$(ns_of "$name")
  veth=$(veth_of "$off")
  d=$(host_dir "$name")/ssh
  stop_sshd "$name"
  if ns_exists "$ns"; then
    kill_namespace "$ns"
    remove_namespace "$ns"
  fi
  if link_exists "$veth"; then ip link del "$veth" 2>/dev/null || true; fi
  ns_exists "$ns" && remains+=("namespace $ns (processes: $(ip netns pids "$ns" 2>/dev/null | tr '\n' ' '))")
  link_exists "$veth" && remains+=("link $veth")
  if [ -f "$d/sshd.pid" ]; then
    pid=$(<"$d/sshd.pid")
    alive "$pid" && our_sshd "$pid" "$d/sshd_config" && remains+=("process $pid (sshd of $name, pid file $d/sshd.pid)")
  fi
  if [ ${#remains[@]} -gt 0 ]; then
    printf '%s\n' "${remains[@]}"
    return 1
  fi
  return 0
}

# ---- the network -----------------------------------------------------------

bridge_up() {
  if link_exists "$bridge"; then
    ip -j addr show dev "$bridge" | jq -e --arg a "$gateway" --argjson l "$plen" \
      '[.[].addr_info[]? | select(.family == "inet" and .local == $a and .prefixlen == $l)] | length > 0' >/dev/null ||
      die "bridge $bridge exists without $gateway/$plen: it is not this run's network (down --all removes it)"
    ip link set "$bridge" up
    return 0
  fi
  rollback_bridge=1
  ip link add "$bridge" type bridge
  ip addr add "$gateway/$plen" dev "$bridge"
  ip link set "$bridge" up
  rollback_bridge=0
  say "bridge $bridge up with $gateway/$plen"
}

# service_user_can_reach warns when the service user cannot traverse to the
# hosts' directories: database servers run as that user from there.
service_user_can_reach() {
  mkdir -p "$run_dir/hosts"
  if ! runuser -u "$service_user" -- test -x "$run_dir/hosts" 2>/dev/null; then
    warn "user $service_user cannot enter $run_dir/hosts (a parent directory lacks o+x); database servers running as $service_user will not reach their data there"
  fi
}

# ---- commands ------------------------------------------------------------------

case $cmd in
up)
  if [ -n "$pubkey_file" ]; then
    pubkey=$(<"$pubkey_file") || bad "cannot read --pubkey-file $pubkey_file"
  fi
  if [ ${#hosts[@]} -eq 0 ]; then
    require_commands
    ensure_user
    mkdir -p /run/sshd # sshd's privilege-separation directory; containers may lack it
    # Two runs starting together must not both find the same subnet free:
    # checking and taking it happen under one machine-wide lock.
    exec 8>/run/ybbench-localhosts.lock
    flock -w 60 8 || die "timed out waiting for /run/ybbench-localhosts.lock"
    check_subnet
    bridge_up
    exec 8>&-
    service_user_can_reach
    exit 0
  fi
  [[ $pubkey =~ ^(ssh-|ecdsa-|sk-)[a-z0-9@.-]+\ [A-Za-z0-9+/=]+ ]] ||
    bad "up --host needs the run's SSH public key (--pubkey or --pubkey-file), an authorized_keys line"
  require_commands
  link_exists "$bridge" || die "bridge $bridge is missing: run 'up' without --host first"
  mkdir -p /run/sshd
  for i in "${!host_names[@]}"; do
    make_host "${host_names[$i]}" "${host_addrs[$i]}" "${host_offsets[$i]}"
  done
  ;;
down)
  command -v ip >/dev/null || bad "missing command ip (iproute2)"
  remains=()
  if [ $all -eq 0 ]; then
    for i in "${!host_names[@]}"; do
      if ! out=$(remove_host "${host_names[$i]}" "${host_offsets[$i]}"); then
        mapfile -t -O "${#remains[@]}" remains <<<"$out"
      else
        say "${host_names[$i]}: down"
      fi
    done
  else
    # Everything of the run, however far an earlier up or down got: sshds of
    # every host directory, every namespace and link with the run's prefix.
    if [ -d "$run_dir/hosts" ]; then
      for d in "$run_dir"/hosts/*/; do
        [ -d "$d" ] && stop_sshd "$(basename "$d")"
      done
    fi
    for ns in $(ip -j netns list 2>/dev/null | jq -r '.[]?.name' | grep "^$prefix-" || true); do
      kill_namespace "$ns"
      remove_namespace "$ns"
    done
    for l in $(ip -j link show 2>/dev/null | jq -r '.[].ifname' | grep -e "^$prefix" -e "^$bridge\$" || true); do
      [ "$l" = "$bridge" ] && continue
      ip link del "$l" 2>/dev/null || true
    done
    if link_exists "$bridge"; then ip link del "$bridge" 2>/dev/null || true; fi
    # What is still there.
    for ns in $(ip -j netns list 2>/dev/null | jq -r '.[]?.name' | grep "^$prefix-" || true); do
      remains+=("namespace $ns (processes: $(ip netns pids "$ns" 2>/dev/null | tr '\n' ' '))")
    done
    for l in $(ip -j link show 2>/dev/null | jq -r '.[].ifname' | grep -e "^$prefix" -e "^$bridge\$" || true); do
      remains+=("link $l")
    done
    if [ -d "$run_dir/hosts" ]; then
      for d in "$run_dir"/hosts/*/ssh; do
        [ -f "$d/sshd.pid" ] || continue
        pid=$(<"$d/sshd.pid")
        [[ $pid =~ ^[0-9]+$ ]] && alive "$pid" && our_sshd "$pid" "$d/sshd_config" &&
          remains+=("process $pid (sshd, pid file $d/sshd.pid)")
      done
    fi
    [ ${#remains[@]} -gt 0 ] || say "run $run_id: all hosts, namespaces, links and the bridge $bridge are gone"
  fi
  if [ ${#remains[@]} -gt 0 ]; then
    echo "$prog: could not remove:" >&2
    printf '  %s\n' "${remains[@]}" >&2
    exit 1
  fi
  ;;
esac
