# ybbench postgres flavor: prepare a db host (db2).
# The server runs as ybbench; everything of the run lives under /disks/d0/ybbench.
# Lines "YBCHANGE <what>" report what this script changed on the host
# outside the run's own directory (the run's record keeps them).
set -euo pipefail
cd /  # the service user may not enter the login directory
# The run's own directories: every directory a run writes in on a host is
# PARENT/ybbench, made by the run and marked with its id before anything
# goes in; only such a directory, marked by this run, is ever removed.
# Exit 20: the path is refused (configuration); 21: the directory is not
# this run's (a user's, or another run's).
own_name=ybbench
own_marker=.ybbench-owner
# own_refuse_system PATH: exit 20 when PATH (resolved) is a system directory.
own_refuse_system() {
  case $1 in
    / | /home | /root | /var | /var/lib | /opt | /srv | /tmp | /mnt | /media | /bin | /bin/* | /boot | /boot/* | /dev | /dev/* | /etc | /etc/* | /lib* | /proc | /proc/* | /run | /run/* | /sbin | /sbin/* | /sys | /sys/* | /usr | /usr/*) echo "$2 is, or lies in, a system directory ($1): refusing to write there" >&2; exit 20 ;;
  esac
}
# own_resolve_near PARENT: PARENT, or when it is missing its nearest
# existing ancestor, resolves to itself (no symbolic link on the way), and
# PARENT is not a system directory; writes nothing. Below a resolved
# ancestor come only new plain names, so PARENT's text is what it will
# resolve to once made.
own_resolve_near() {
  local parent=$1 near real
  case $parent in /*) ;; *) echo "$parent: not an absolute path" >&2; exit 20 ;; esac
  near=$parent
  while [ ! -e "$near" ] && [ ! -L "$near" ]; do near=$(dirname -- "$near"); done
  real=$(realpath -e -- "$near" 2>/dev/null) || { echo "$near: cannot be resolved" >&2; exit 20; }
  if [ "$real" != "$near" ]; then
    echo "$parent: $near resolves to $real (a symbolic link on the way): give the resolved path, after checking it is meant" >&2
    exit 20
  fi
  own_refuse_system "$parent" "$parent"
  if [ "$near" = "$parent" ] && [ ! -d "$parent" ]; then echo "$parent: not a directory" >&2; exit 20; fi
}
# own_resolve PARENT [create]: PARENT exists (with create, a missing one is
# made, mode 0755, and left in place by own_release, which never removes a
# parent), resolves to itself and is not a system directory.
own_resolve() {
  local parent=$1 create=${2:-}
  own_resolve_near "$parent"
  if [ ! -e "$parent" ]; then
    [ -n "$create" ] || { echo "$parent: does not exist" >&2; exit 20; }
    (umask 022 && mkdir -p -- "$parent")
    echo "YBOWN created-parent $parent"
  fi
  own_resolve_near "$parent"
}
# own_precheck PARENT RUN: everything own_claim checks, before the host is
# changed at all (no package installed, no user added yet): PARENT is
# acceptable and a PARENT/ybbench there is RUN's. Writes nothing.
own_precheck() {
  own_resolve_near "$1"
  if [ -e "$1/$own_name" ] || [ -L "$1/$own_name" ]; then own_check "$1/$own_name" "$2"; fi
}
# own_check DIR RUN: DIR (PARENT/ybbench, existing) is a directory of
# this run: not a link, marked, the marker naming RUN.
own_check() {
  local dir=$1 run=$2 owner
  if [ -L "$dir" ] || [ ! -d "$dir" ] || [ "$(realpath -e -- "$dir")" != "$dir" ]; then
    echo "$dir exists and is not a directory ybbench made (a link or a file): refusing to touch it" >&2
    exit 21
  fi
  if [ -L "$dir/$own_marker" ] || [ ! -f "$dir/$own_marker" ]; then
    echo "$dir exists and has no $own_marker: ybbench did not make it, so it is neither used nor removed; move it away or choose another directory" >&2
    exit 21
  fi
  owner=$(sed -n 's/^run=//p' "$dir/$own_marker" | head -n 1)
  if [ "$owner" != "$run" ]; then
    echo "$dir belongs to run ${owner:-(unnamed)}: ybbench down --run ${owner:-ID} removes it" >&2
    exit 21
  fi
}
# own_is_mine DIR RUN: whether DIR is RUN's own directory, without exiting
# (for a stop at teardown: a directory not the run's holds nothing of it to
# stop, and that is no failure); the reason it is not goes to stderr.
own_is_mine() {
  local why
  if ! why=$(own_check "$1" "$2" 2>&1 >/dev/null); then
    echo "left alone, not this run's: $why" >&2
    return 1
  fi
}
# own_claim PARENT RUN VERSION [USER]: makes PARENT/ybbench for RUN, marked
# before anything goes in, or takes back the one RUN made; with USER, the
# directory is USER's and USER must reach it (ybbench changes no mode
# outside its own directories).
own_claim() {
  local parent=$1 run=$2 version=$3 user=${4:-} dir
  own_resolve "$parent" create
  dir=$parent/$own_name
  if [ -e "$dir" ] || [ -L "$dir" ]; then
    own_check "$dir" "$run"
  else
    # A TERM (a cancelled run) waits until the directory has its marker:
    # one killed between the two would be unmarked, and never removed.
    # The shell's trap holds the signal for the shell alone: mkdir runs
    # with it ignored (a mkdir killed after making the directory would
    # stop the script under set -e), and the time comes from the shell's
    # own printf, with no process to kill.
    own_term='' own_traps=$(trap -p TERM INT HUP)
    trap 'own_term=1' TERM INT HUP
    (trap '' TERM INT HUP; exec mkdir -m 0755 -- "$dir")
    if ! TZ=UTC printf 'run=%s\nversion=%s\ncreated=%(%Y-%m-%dT%H:%M:%SZ)T\n' "$run" "$version" -1 >"$dir/$own_marker"; then
      rmdir -- "$dir"
      exit 21
    fi
    chmod 0644 "$dir/$own_marker"
    trap - TERM INT HUP
    eval "$own_traps"
    [ -z "$own_term" ] || kill -TERM $$
  fi
  if [ -n "$user" ]; then
    chown -- "$user" "$dir"
    if ! runuser -u "$user" -- test -x "$dir"; then
      echo "the service user $user cannot reach $dir (a directory above it is not searchable by others); ybbench changes no permission outside its own directories: make the path searchable or choose another directory" >&2
      exit 20
    fi
  fi
  echo "YBOWN claimed $dir"
}
# own_release PARENT RUN: removes PARENT/ybbench when RUN made it (never
# PARENT itself, never across a mount point). One that is gone is fine;
# one that is not RUN's (a user's, another run's, reached through a link)
# is left alone and said so: it was never this run's to remove.
own_release() {
  local parent=$1 run=$2 dir why
  dir=$parent/$own_name
  if [ ! -e "$dir" ] && [ ! -L "$dir" ]; then
    echo "YBOWN absent $dir"
    return 0
  fi
  if ! why=$( { own_resolve "$parent" && own_check "$dir" "$run"; } 2>&1 >/dev/null ); then
    echo "left alone, not this run's: $why" >&2
    echo "YBOWN left $dir"
    return 0
  fi
  rm -rf --one-file-system -- "$dir"
  echo "YBOWN removed $dir"
}

# Before the host is changed at all (a package, a user): the directory the
# run will claim is acceptable, and a ybbench/ there is this run's.
own_precheck /disks/d0 r1
find_bin() {
  bin=""
  local d
  for d in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r); do
    if [ -x "$d/postgres" ]; then bin=$d; return 0; fi
  done
}
find_bin
if [ -z "$bin" ]; then
  if ! command -v apt-get >/dev/null; then
    echo "PostgreSQL is not installed and there is no apt-get to install it" >&2
    exit 3
  fi
  # Debian's package makes and starts a cluster (main, on 5432) when it finds
  # none: the clusters before and after tell which ones the install made.
  clusters() { if command -v pg_lsclusters >/dev/null; then pg_lsclusters -h | awk '{print $1 "/" $2}'; fi; }
  before=$(clusters)
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q postgresql >/dev/null
  echo "YBCHANGE apt-get install postgresql"
  for vc in $(clusters); do
    if printf '%s\n' "$before" | grep -qxF -- "$vc"; then continue; fi  # the host's own: left alone
    ver=${vc%%/*} name=${vc#*/}
    pg_ctlcluster "$ver" "$name" stop || true
    # manual: neither the boot nor "systemctl start postgresql" starts it again.
    echo manual >"/etc/postgresql/$ver/$name/start.conf"
    if [ -d /run/systemd/system ]; then
      systemctl disable --now "postgresql@$ver-$name" >/dev/null 2>&1 || true
      systemctl daemon-reload || true
    fi
    echo "YBCHANGE stopped the cluster $ver/$name the install made, and set it to start manually (/etc/postgresql/$ver/$name/start.conf)"
  done
  find_bin
  if [ -z "$bin" ]; then echo "apt-get installed postgresql but no /usr/lib/postgresql/*/bin/postgres appeared" >&2; exit 3; fi
fi
if ! id -u ybbench >/dev/null 2>&1; then
  useradd --system --no-create-home --shell /usr/sbin/nologin ybbench
  echo "YBCHANGE useradd "ybbench
fi
# The run's own directory, marked before anything goes in; a user's
# directory, or another run's, stops the install here untouched.
own_claim /disks/d0 r1 v1.2.3 ybbench
umask 077
for d in /disks/d0/ybbench/postgres /disks/d0/ybbench/postgres/run /disks/d0/ybbench/postgres/log /disks/d0/ybbench/pgs; do
  [ -d "$d" ] || mkdir -m 0700 -- "$d"
  chown -- ybbench "$d"
done
echo "bin=$bin"
"$bin/postgres" --version
