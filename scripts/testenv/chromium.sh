#!/usr/bin/env bash
# Test-environment component "chromium": Debian's chromium, the headless
# browser the HTML report's test opens report.html in. No server. Its
# fragment <statedir>/chromium.json is {"chromium": {"path": "<the binary>"}}.
#
#   chromium.sh up   <statedir>   apt-get install chromium if missing (as
#                                 root), write the fragment
#   chromium.sh down <statedir>   nothing to stop (the package stays)
#
# Safe to run twice and concurrently: a lock serialises installs. Not part of
# scripts/setup.sh: only the browser test needs it.
set -euo pipefail

die() { echo "chromium: $*" >&2; exit 1; }
note() { echo "chromium: $*" >&2; }
usage() { echo "usage: $0 up|down <statedir>" >&2; exit 2; }

[ $# -eq 2 ] || usage
cmd=$1
case $cmd in up|down) ;; *) usage ;; esac
mkdir -p "$2"
state=$(cd "$2" && pwd -P)
frag=$state/chromium.json
exec 9>"$state/chromium.lock"
flock 9

find_chromium() { command -v chromium || command -v chromium-browser || true; }

up() {
  bin=$(find_chromium)
  if [ -z "$bin" ]; then
    [ "$(id -u)" = 0 ] || die "chromium is missing and installing it needs root (apt-get install chromium)"
    note "installing Debian's chromium"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium >/dev/null ||
      { apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium >/dev/null; } ||
      die "apt-get install chromium failed"
    bin=$(find_chromium)
    [ -n "$bin" ] || die "chromium is not on PATH after apt-get install"
  fi
  python3 - "$frag" "$bin" <<'PY'
import json, sys, os
frag, path = sys.argv[1], sys.argv[2]
tmp = frag + ".tmp"
with open(tmp, "w") as f:
    json.dump({"chromium": {"path": path}}, f, indent=2)
os.replace(tmp, frag)
PY
}

down() { :; } # no server; the package stays for the next `up`

"$cmd"
