#!/usr/bin/env bash
# Machine setup for developing and testing ybbench on Debian 12, as root.
#
# Installs with apt what the project and its tests need and is missing; installs
# nothing when everything is there (then it takes about a second). Safe to run
# any number of times. Go must already be installed (it is not a Debian 12
# package in a recent enough version); this script only checks for it.
#
# Note: Debian's postgresql package creates a cluster "15/main" on port 5432 and
# may start it. The tests never use it (scripts/testenv/postgres.sh runs its own
# server on a port it chooses); it may keep running.
set -euo pipefail

die() { echo "setup: $*" >&2; exit 1; }
say() { echo "setup: $*"; }

[ "$(id -u)" -eq 0 ] || die "must run as root (it installs packages with apt-get)"
command -v apt-get >/dev/null && command -v dpkg-query >/dev/null ||
  die "apt-get/dpkg-query not found; this script supports Debian 12 only"
if [ -r /etc/os-release ]; then
  # shellcheck disable=SC1091
  . /etc/os-release
  [ "${ID:-}" = debian ] && [ "${VERSION_ID:-}" = 12 ] ||
    echo "setup: warning: written for Debian 12, this is ${PRETTY_NAME:-unknown}; continuing" >&2
fi

# Package -> why it is needed.
packages=(
  postgresql          # the shared test server (scripts/testenv/postgres.sh): Debian's 15
  postgresql-contrib  # pg_stat_statements (only a dependency package on Debian 12, but explicit)
  openssh-server      # hosts reached over SSH by provision/ in the end-to-end tests
  openssh-client
  iproute2            # ss, ip: free ports, network faults
  procps              # ps, pgrep, sysctl
  jq
  curl
  ca-certificates
  sysbench            # a workload the benchmarks run
  util-linux          # runuser, flock, setpriv
  iptables            # network-partition faults, hosts behind a firewall
  sudo                # hosts whose SSH login user is not root (provision/ssh tests)
  python3             # scripts/testenv merges and writes JSON with it
  python3-venv        # the moto server (scripts/testenv/moto.sh) lives in its own venv
  xfsprogs            # mkfs.xfs: the cloud hosts' disk script (infra/cloudinit), tested on loop devices
)

installed() { # pkg: fully installed (not just unpacked or removed with config kept)
  [ "$(dpkg-query -W -f='${db:Status-Status}' "$1" 2>/dev/null)" = installed ]
}

missing=()
for p in "${packages[@]}"; do
  installed "$p" || missing+=("$p")
done

# Java 17 and Maven build the Java-side tools; often present outside apt (e.g. SDKMAN),
# so look for the commands rather than the packages.
command -v java >/dev/null || missing+=(openjdk-17-jdk-headless)
command -v mvn >/dev/null || missing+=(maven)
# npm fetches the provider packages whose metadata gives the Terraform module
# tests their schemas (scripts/testenv/providers.sh); a NodeSource nodejs also
# provides it, so look for the command.
command -v npm >/dev/null || missing+=(npm)

if [ ${#missing[@]} -gt 0 ]; then
  say "installing: ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  # Refresh the package lists only when they are missing or older than a day:
  # a fresh machine has none, and a second run should not pay for it.
  lists=/var/lib/apt/lists
  if [ -z "$(find "$lists" -maxdepth 1 -name '*_Packages*' -mmin -1440 -print -quit 2>/dev/null)" ]; then
    say "apt-get update"
    apt-get update -q
  fi
  apt-get install -y -q --no-install-recommends "${missing[@]}"
else
  say "all packages present"
fi

# sshd refuses to start without host keys and its privilege-separation directory;
# on containers and minimal images the package's own service start may not have run.
if installed openssh-server; then
  ls /etc/ssh/ssh_host_*_key >/dev/null 2>&1 || { say "generating SSH host keys"; ssh-keygen -A; }
  mkdir -p /run/sshd
fi

# Report what the project will use; fail on what cannot be installed from here.
java_version=$(java -version 2>&1) || die "java is not working: $java_version"
java_version=${java_version%%$'\n'*}
case $java_version in
  *'"1.'*|*'"9'*|*'"10'*|*'"11'*|*'"12'*|*'"13'*|*'"14'*|*'"15'*|*'"16'*)
    die "need Java 17 or newer, found: $java_version (apt-get install openjdk-17-jdk-headless)" ;;
esac
command -v go >/dev/null || die "go is not on PATH; install Go (see go.mod for the version) from https://go.dev/dl/"
pg=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
[ -n "$pg" ] || die "no PostgreSQL under /usr/lib/postgresql/<major>/bin after installing postgresql"
say "go: $(go version | awk '{print $3}'); java: $java_version; maven: $(mvn -B -v 2>/dev/null | sed 's/\x1b\[[0-9;]*m//g' | head -n 1 | awk '{print $3}')"
say "postgresql: $("$pg/postgres" --version | awk '{print $3}') ($pg); sysbench: $(sysbench --version | awk '{print $2}')"
say "done"
