#!/usr/bin/env bash
# Test-environment component "providers": the schemas of the Terraform
# providers that terraform/aws and terraform/gcp pin, for the module tests
# (terraform/tfcheck). No provider binary can be downloaded where the tests
# run, so the schemas come from the npm packages that cdktf generates from
# the providers (their .jsii metadata), reduced once to a compact schema.
#
#   providers.sh up   <statedir>   fetch and derive what is missing (idempotent), write the fragment
#   providers.sh down <statedir>   nothing: the schemas stay cached for the next `up`
#
# Kept in <statedir>/providers: each package's tarball (so a change of the
# derivation never needs the network again) and <provider>.schema.json.gz.
# The .jsii files themselves (131 MB and 99 MB of JSON) are extracted to a
# temporary directory and removed.
set -euo pipefail

# package@version → provider local name. The versions are the ones generated
# from provider aws 6.25.0 and google 6.50.0 (the modules' exact pins).
packages=(
  "@cdktf/provider-aws@21.22.1 aws"
  "@cdktf/provider-google@16.12.1 google"
)

usage() { echo "usage: $0 up|down <statedir>" >&2; exit 2; }
[ $# -eq 2 ] || usage
cmd=$1
mkdir -p "$2"
# Physical path: the state directory may be a symlink shared by worktrees,
# and the fragment must name files every one of them can read.
state=$(cd "$2" && pwd -P)
root=$(cd "$(dirname "$0")/../.." && pwd)
dir=$state/providers
frag=$state/providers.json

# stamp is what a schema was derived from: the package and the derivation's
# source, so that a change to either derives it again.
stamp() {
  local pkg=$1
  { echo "$pkg"; cat "$root"/terraform/tfcheck/jsii.go "$root"/terraform/tfcheck/schema.go "$root"/scripts/tfschema/main.go; } | sha256sum | cut -d' ' -f1
}

# tarball_name maps @scope/name@version to npm pack's file name.
tarball_name() {
  local pkg=$1 name version
  name=${pkg%@*}; version=${pkg##*@}
  name=${name#@}; name=${name//\//-}
  echo "$name-$version.tgz"
}

fetch_and_derive() {
  local pkg=$1 provider=$2 tgz schema want
  tgz=$dir/$(tarball_name "$pkg")
  schema=$dir/$provider.schema.json.gz
  want=$(stamp "$pkg")
  if [ -s "$schema" ] && [ "$(cat "$schema.stamp" 2>/dev/null)" = "$want" ]; then
    echo "providers: $provider schema from $pkg already in $dir" >&2
    return
  fi
  if [ ! -s "$tgz" ]; then
    command -v npm >/dev/null || { echo "providers: 'npm' is not on PATH; it fetches $pkg (scripts/setup.sh installs it)" >&2; exit 1; }
    echo "providers: fetching $pkg (npm pack)" >&2
    local t0=$SECONDS npmcache
    # A throw-away npm cache: the tarball kept here is the only copy.
    npmcache=$(mktemp -d)
    (cd "$dir" && npm pack --silent --cache "$npmcache" "$pkg" >/dev/null) || { rm -rf "$npmcache"; echo "providers: npm pack $pkg failed" >&2; exit 1; }
    rm -rf "$npmcache"
    [ -s "$tgz" ] || { echo "providers: npm pack did not write $tgz" >&2; exit 1; }
    echo "providers: fetched $pkg in $((SECONDS - t0)) s" >&2
  fi
  local tmp t0=$SECONDS
  tmp=$(mktemp -d)
  tar -xzf "$tgz" -C "$tmp" package/.jsii
  (cd "$root" && go run ./scripts/tfschema -jsii "$tmp/package/.jsii" -o "$schema") || { rm -rf "$tmp"; exit 1; }
  rm -rf "$tmp"
  echo "$want" >"$schema.stamp"
  echo "providers: derived the $provider schema in $((SECONDS - t0)) s" >&2
}

write_fragment() {
  python3 - "$frag" "$dir" <<'PY'
import json, os, sys
out, d = sys.argv[1:]
schemas = {p: os.path.join(d, p + ".schema.json.gz") for p in ("aws", "google")}
tmp = out + ".tmp"
with open(tmp, "w") as f:
    json.dump({"provider_schemas": schemas}, f, indent=2)
    f.write("\n")
os.replace(tmp, out)
PY
}

case $cmd in
  up)
    mkdir -p "$dir"
    # Two concurrent `make testenv` runs must not write the same files.
    exec 9>"$state/providers.lock"
    flock 9
    for p in "${packages[@]}"; do
      # shellcheck disable=SC2086
      fetch_and_derive $p
    done
    write_fragment
    ;;
  down) ;;
  *) usage ;;
esac
