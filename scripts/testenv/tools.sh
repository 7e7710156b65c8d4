#!/usr/bin/env bash
# Test-environment component "tools": installs the command-line tools the tests
# need into <statedir>/bin and writes <statedir>/tools.json.
#
#   tools.sh up   <statedir>   install what is missing (idempotent), write the fragment
#   tools.sh down <statedir>   nothing: the tools stay cached for the next `up`
#
# Tools:
#   terraform 1.5.7 — built from source with `go install` (the last MPL-licensed
#   release, the version the terraform/ modules are written against). A terraform
#   found on PATH is deliberately ignored: its version is whatever the machine has.
#   tflint 0.64.0 — built with `go install`; its bundled terraform ruleset lints
#   the modules in the integration tier (no plugin is downloaded).
#   HdrHistogram 2.2.2 — the Java library's jar from Maven Central (copied by
#   maven-dependency-plugin 3.6.1, the one the cassandra component uses) into
#   <statedir>/jars, with a Java 17 to run it: the collector's interval logs are
#   read back with its HistogramLogProcessor. Skipped, with a message, when
#   Maven or Java 17 is missing (the tests that need it then skip).
set -euo pipefail

terraform_version=1.5.7
tflint_version=0.64.0
hdrhistogram_version=2.2.2

usage() { echo "usage: $0 up|down <statedir>" >&2; exit 2; }
[ $# -eq 2 ] || usage
cmd=$1
mkdir -p "$2"
# Physical path: the state directory may be a symlink shared by worktrees,
# and the fragment must name files every one of them can read.
state=$(cd "$2" && pwd -P)
bin=$state/bin
frag=$state/tools.json

# Terraform phones home for update checks unless told not to; tests must not.
export CHECKPOINT_DISABLE=1

terraform_ok() {
  [ -x "$bin/terraform" ] || return 1
  local out
  out=$("$bin/terraform" version 2>/dev/null) || return 1
  # First line is "Terraform v1.5.7"; anything else (e.g. a dev build) is rebuilt.
  [ "$(printf '%s\n' "$out" | head -n 1)" = "Terraform v$terraform_version" ]
}

install_terraform() {
  if terraform_ok; then
    echo "tools: terraform v$terraform_version already in $bin" >&2
    return
  fi
  command -v go >/dev/null || { echo "tools: 'go' is not on PATH; it is needed to build terraform $terraform_version" >&2; exit 1; }
  echo "tools: building terraform v$terraform_version into $bin (go install; a few minutes on a cold cache)" >&2
  mkdir -p "$bin"
  # CGO off: a static binary, and no C compiler needed. Run outside the repo so
  # nothing in this module's go.mod/GOFLAGS can influence the build.
  (cd / && CGO_ENABLED=0 GOBIN="$bin" go install "github.com/hashicorp/terraform@v$terraform_version")
  terraform_ok || { echo "tools: $bin/terraform was built but does not report v$terraform_version" >&2; exit 1; }
}

tflint_ok() {
  [ -x "$bin/tflint" ] || return 1
  local out
  out=$("$bin/tflint" --version 2>/dev/null) || return 1
  # First line is "TFLint version 0.64.0".
  [ "$(printf '%s\n' "$out" | head -n 1)" = "TFLint version $tflint_version" ]
}

install_tflint() {
  if tflint_ok; then
    echo "tools: tflint v$tflint_version already in $bin" >&2
    return
  fi
  command -v go >/dev/null || { echo "tools: 'go' is not on PATH; it is needed to build tflint $tflint_version" >&2; exit 1; }
  echo "tools: building tflint v$tflint_version into $bin (go install; about 4 minutes on a cold cache)" >&2
  (cd / && CGO_ENABLED=0 GOBIN="$bin" go install "github.com/terraform-linters/tflint@v$tflint_version")
  tflint_ok || { echo "tools: $bin/tflint was built but does not report $tflint_version" >&2; exit 1; }
}

hdr_jar=$state/jars/HdrHistogram-$hdrhistogram_version.jar
hdr_java=

java17() {
  local c
  for c in ${JAVA_HOME:+"$JAVA_HOME/bin/java"} /usr/lib/jvm/java-17-openjdk-*/bin/java \
    /usr/lib/jvm/temurin-17-*/bin/java "$(command -v java || true)"; do
    [ -n "$c" ] && [ -x "$c" ] || continue
    if [ "$("$c" -XshowSettings:properties -version 2>&1 | awk -F'= ' '/java.specification.version/ {print $2; exit}')" = 17 ]; then
      readlink -f "$c"
      return 0
    fi
  done
  return 1
}

install_hdrhistogram() {
  if ! hdr_java=$(java17); then
    echo "tools: no Java 17 found; the HdrHistogram $hdrhistogram_version log check will skip" >&2
    hdr_java=
    return
  fi
  if [ -s "$hdr_jar" ]; then
    echo "tools: HdrHistogram $hdrhistogram_version already in $state/jars" >&2
    return
  fi
  command -v mvn >/dev/null || { echo "tools: 'mvn' is not on PATH; the HdrHistogram $hdrhistogram_version log check will skip" >&2; return; }
  echo "tools: fetching HdrHistogram $hdrhistogram_version from Maven Central into $state/jars" >&2
  mvn -B -q org.apache.maven.plugins:maven-dependency-plugin:3.6.1:copy \
    -Dartifact=org.hdrhistogram:HdrHistogram:$hdrhistogram_version -DoutputDirectory="$state/jars" >&2 ||
    { echo "tools: maven could not fetch HdrHistogram $hdrhistogram_version" >&2; exit 1; }
  [ -s "$hdr_jar" ] || { echo "tools: $hdr_jar missing after maven" >&2; exit 1; }
}

write_fragment() {
  local jar=
  [ -n "$hdr_java" ] && [ -s "$hdr_jar" ] && jar=$hdr_jar
  python3 - "$frag" "$bin/terraform" "$bin" "$bin/tflint" "$jar" "$hdr_java" <<'PY'
import json, os, sys
out, terraform, bin_dir, tflint, jar, java = sys.argv[1:]
doc = {"terraform": terraform, "bin_dir": bin_dir, "tflint": tflint}
if jar:
    doc["hdrhistogram"] = {"jar": jar, "java": java}
tmp = out + ".tmp"
with open(tmp, "w") as f:
    json.dump(doc, f, indent=2)
    f.write("\n")
os.replace(tmp, out)
PY
}

case $cmd in
  up)
    mkdir -p "$bin"
    # Two concurrent `make testenv` runs must not build into the same GOBIN at once.
    exec 9>"$state/tools.lock"
    flock 9
    install_terraform
    install_tflint
    install_hdrhistogram
    write_fragment
    ;;
  down) ;;
  *) usage ;;
esac
