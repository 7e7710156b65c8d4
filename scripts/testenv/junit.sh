#!/usr/bin/env bash
# Test-environment component "junit": PyPI's junitparser, a JUnit XML reader
# CI systems' tooling uses, in its own venv, so that a test can read the
# junit.xml a gated run writes as a consumer would. No server. Its fragment
# <statedir>/junit.json is {"junitparser": {"python": "<the venv's python>"}}.
#
#   junit.sh up   <statedir>   install junitparser in its venv if missing (or
#                              of another version), write the fragment
#   junit.sh down <statedir>   nothing to stop (the venv stays for the next `up`)
#
# Safe to run twice and concurrently: a lock serialises installs. Layout
# under <statedir>/junit: venv/, lock.
set -euo pipefail

# The exact version the consumer test was written against.
junitparser_version=5.0.3

die() { echo "junit: $*" >&2; exit 1; }
note() { echo "junit: $*" >&2; }
usage() { echo "usage: $0 up|down <statedir>" >&2; exit 2; }

[ $# -eq 2 ] || usage
cmd=$1
case $cmd in up|down) ;; *) usage ;; esac
mkdir -p "$2"
state=$(cd "$2" && pwd -P)
dir=$state/junit
venv=$dir/venv
frag=$state/junit.json
mkdir -p "$dir"
exec 9>"$dir/lock"
flock 9

installed() {
  [ -x "$venv/bin/python" ] &&
    [ "$("$venv/bin/python" -c 'import importlib.metadata as m; print(m.version("junitparser"))' 2>/dev/null)" = "$junitparser_version" ]
}

up() {
  if ! installed; then
    python3 -m venv --help >/dev/null 2>&1 || die "python3's venv module is missing (scripts/setup.sh installs python3-venv)"
    note "installing junitparser==$junitparser_version in $venv"
    rm -rf "$venv"
    python3 -m venv "$venv" || die "python3 -m venv $venv failed (scripts/setup.sh installs python3-venv)"
    "$venv/bin/pip" install --quiet --disable-pip-version-check "junitparser==$junitparser_version" ||
      die "pip install junitparser==$junitparser_version failed"
    installed || die "junitparser $junitparser_version is not importable from $venv"
  fi
  python3 - "$frag" "$venv/bin/python" <<'PY'
import json, sys, os
frag, python = sys.argv[1], sys.argv[2]
tmp = frag + ".tmp"
with open(tmp, "w") as f:
    json.dump({"junitparser": {"python": python}}, f, indent=2)
os.replace(tmp, frag)
PY
}

down() { :; } # no server; the venv stays, as moto's does

"$cmd"
