#!/usr/bin/env bash
# Test-environment component "refs": the JVM reference tools, from Maven
# Central, for the tests that compare the agent with them and for `make bench`.
# No server. Its fragment <statedir>/refs.json is
#   {"refs": {"java": "<a Java 17>", "ycsb_classpath": "<dir>/*",
#             "yb_sample_apps_jar": "<jar>"}}
#
#   refs.sh up   <statedir>   fetch what is missing (idempotent), write the fragment
#   refs.sh down <statedir>   nothing to stop (the jars stay for the next `up`)
#
# Versions (scripts/testenv/refs/pom.xml): YCSB core 0.17.0 with its runtime
# dependencies (HdrHistogram 2.1.4, Jackson 1.9, htrace) — its site.ycsb.Client
# with site.ycsb.BasicDB runs any workload without a database; yb-sample-apps
# 1.0.11, a runnable jar. Layout under <statedir>/refs: lib/ (YCSB's jars),
# apps/ (the runnable jar, kept off YCSB's class path), build/ (maven's), lock.
# Safe to run twice and concurrently: a lock serialises fetches.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
die() { echo "refs: $*" >&2; exit 1; }
note() { echo "refs: $*" >&2; }
usage() { echo "usage: $0 up|down <statedir>" >&2; exit 2; }

[ $# -eq 2 ] || usage
cmd=$1
case $cmd in up|down) ;; *) usage ;; esac
mkdir -p "$2"
state=$(cd "$2" && pwd -P)
dir=$state/refs
lib=$dir/lib
frag=$state/refs.json
mkdir -p "$dir"
exec 9>"$dir/lock"
flock 9

# The jars the fragment promises: their names carry the versions, so a
# change of version in the pom fetches again.
apps=$dir/apps/yb-sample-apps-1.0.11.jar
want=("$lib/core-0.17.0.jar" "$lib/HdrHistogram-2.1.4.jar" "$apps")

fetched() {
  local f
  for f in "${want[@]}"; do [ -s "$f" ] || return 1; done
}

java17() {
  local c v
  for c in "${JAVA_HOME:+$JAVA_HOME/bin/java}" /usr/lib/jvm/java-17-openjdk-*/bin/java "$(command -v java || true)"; do
    [ -n "$c" ] && [ -x "$c" ] || continue
    v=$("$c" -version 2>&1 | sed -n 's/.*version "\([0-9]*\).*/\1/p' | head -1)
    [ "$v" = 17 ] && { readlink -f "$c"; return 0; }
  done
  return 1
}

up() {
  local java
  java=$(java17) || die "no Java 17 (scripts/setup.sh installs openjdk-17-jre-headless)"
  if ! fetched; then
    command -v mvn >/dev/null || die "mvn not found (needed once, to fetch the jars)"
    note "fetching YCSB core 0.17.0 and yb-sample-apps 1.0.11 from Maven Central into $lib"
    rm -rf "$dir/build" "$lib"
    mkdir -p "$dir/build"
    cp "$here/refs/pom.xml" "$dir/build/pom.xml"
    if ! (cd "$dir/build" && mvn -B -q package -Drefs.libdir="$lib" >"$dir/build/mvn.log" 2>&1); then
      tail -40 "$dir/build/mvn.log" >&2
      die "maven could not fetch the reference tools (log: $dir/build/mvn.log)"
    fi
    # The runnable jar holds its own copies of libraries (another
    # HdrHistogram among them): it must not be on YCSB's class path.
    mkdir -p "$dir/apps"
    mv "$lib/$(basename "$apps")" "$apps" 2>/dev/null || true
    fetched || die "after maven, one of ${want[*]} is missing"
  fi
  python3 - "$frag" "$java" "$lib/*" "$apps" <<'PY'
import json, sys, os
frag, java, cp, jar = sys.argv[1:]
tmp = frag + ".tmp"
with open(tmp, "w") as f:
    json.dump({"refs": {"java": java, "ycsb_classpath": cp, "yb_sample_apps_jar": jar}}, f, indent=2)
os.replace(tmp, frag)
PY
}

down() { :; }

"$cmd"
