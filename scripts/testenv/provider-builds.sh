#!/usr/bin/env bash
# Test-environment component "provider-builds": the real Terraform providers
# for terraform/aws and terraform/gcp, built from their Go source (the Go
# module proxy serves it; the Terraform registry cannot be reached here),
# and a Terraform CLI configuration that installs them from a local mirror.
#
#   provider-builds.sh up   <statedir>   build what the cache lacks (idempotent), write the fragment
#   provider-builds.sh down <statedir>   nothing: the binaries stay cached for the next `up`
#
# Cache: ${YBBENCH_CACHE:-$HOME/.cache/ybbench}/terraform-providers/<name>/<key>/,
# keyed by the source's version and this script's recipe, so a second `up`
# costs seconds. The fragment <statedir>/provider-builds.json names each
# binary, the source it was built from, the version it is installed as, and
# the CLI configuration file (TF_CLI_CONFIG_FILE).
#
# Which source (the one place that names it). The proxy lists only the
# repositories' v1.x tags (their module paths carry no /v6 or /v8), refuses
# queries by tag, branch or commit, and serves exact pseudo-versions of the
# commits it has. The modules pin aws 6.25.0 and google 6.50.0, the releases
# the schema check (providers.sh) has; no pseudo-version of either release's
# commit is served here, so the builds take the nearest commits it serves:
#   aws    commit 5f2286d6d836 of 2026-06-02: 6.47.0 plus the changes its
#          CHANGELOG lists under "6.48.0 (Unreleased)" (version/VERSION says 6.47.1)
#   google commit f3721fb45fa3 of 2026-08-28: two days after 8.0.0, its newest
#          release in the CHANGELOG
# The mirror holds each build under the version its module pins (Terraform
# takes a mirror's directory names for versions and cannot tell), so the
# modules stay exactly what users get; dev_overrides would not do: Terraform
# 1.5's init still asks the registry for an overridden provider.
#
# What is left out of the aws build, and why it cannot change a result: the
# provider registers its ~260 service packages in one generated list
# (internal/provider/sdkv2/service_packages_gen.go) and makes each service's
# SDK client through one generated accessor (internal/conns/awsclient_gen.go).
# The build keeps the services in aws_services (every resource the module
# declares is EC2's) and the accessors that the kept code calls; the resource
# code, the SDK and the provider's configuration are the release's. A module
# that used a resource of a service left out would fail its plan with
# "unsupported resource type", never apply differently. The google provider is
# built whole.
set -euo pipefail

aws_module=github.com/hashicorp/terraform-provider-aws
aws_version=v1.60.1-0.20260602190131-5f2286d6d836
aws_source="commit 5f2286d6d836 (2026-06-02; 6.47.0 plus the unreleased 6.48.0 changes)"
aws_services="ec2"
google_module=github.com/hashicorp/terraform-provider-google
google_version=v1.20.1-0.20260828184646-f3721fb45fa3
google_source="commit f3721fb45fa3 (2026-08-28; 8.0.0 plus two days)"
build_flags="-trimpath -ldflags=-s -w"

usage() { echo "usage: $0 up|down <statedir>" >&2; exit 2; }
[ $# -eq 2 ] || usage
cmd=$1
case $cmd in up|down) ;; *) usage ;; esac
mkdir -p "$2"
state=$(cd "$2" && pwd -P)
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
cache=${YBBENCH_CACHE:-$HOME/.cache/ybbench}/terraform-providers
frag=$state/provider-builds.json
rc=$state/provider-builds/terraformrc
mirror_dir=$state/provider-builds/mirror

# scratch: the source copies, removed however the script ends.
scratch=()
trap 'rm -rf "${scratch[@]}" ' EXIT
note() { echo "provider-builds: $*" >&2; }
die() { note "$*"; exit 1; }

# recipe_key NAME VERSION: what a binary is built from: the source's
# version, the build's flags and, for aws, the services kept and the
# pruning, so that a change of any of them builds it again.
recipe_key() {
  local name=$1 version=$2
  echo "$version-$({ echo "$name $build_flags"; [ "$name" != aws ] || { echo "$aws_services"; cat "$here/provider-prune.py"; }; } | sha256sum | cut -c1-12)"
}

# build NAME MODULE VERSION: sets built to the binary's path, building it
# if the cache lacks it.
build() {
  local name=$1 module=$2 version=$3 key dir bin src t0=$SECONDS
  key=$(recipe_key "$name" "$version")
  dir=$cache/$name/$key
  bin=$dir/terraform-provider-$name
  if [ -x "$bin" ]; then
    note "$name: cached at $bin"
    built=$bin
    return
  fi
  mkdir -p "$dir"
  note "$name: downloading $module@$version from the Go module proxy"
  src=$(go mod download -json "$module@$version" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d.get("Dir") or ""); sys.exit(1 if d.get("Error") else 0)') ||
    die "$name: go mod download $module@$version failed"
  # The module cache is read-only: the build works on a copy.
  local work
  work=$(mktemp -d "$dir/src.XXXXXX")
  scratch+=("$work")
  cp -r "$src/." "$work/"
  chmod -R u+w "$work"
  if [ "$name" = aws ]; then
    python3 "$here/provider-prune.py" "$work" $aws_services || die "aws: pruning the service lists failed"
  fi
  note "$name: building (CGO_ENABLED=0 go build; the first build on a machine takes minutes)"
  (cd "$work" && CGO_ENABLED=0 GOFLAGS=-mod=mod go build -trimpath -ldflags='-s -w' -o "$bin.tmp" .) ||
    die "$name: go build failed"
  mv "$bin.tmp" "$bin"
  note "$name: built in $((SECONDS - t0)) s: $bin"
  built=$bin
}

# pin MODULE: the provider version a module pins (its versions.tf).
pin() {
  sed -n 's/^ *version *= *"\([0-9][0-9.]*\)".*/\1/p' "$root/terraform/$1/versions.tf"
}

# mirror NAME BINARY VERSION: puts the binary in the mirror as that
# provider's VERSION for linux_amd64 (a hard link of the cached file).
mirror() {
  local name=$1 bin=$2 version=$3 d
  d=$mirror_dir/registry.terraform.io/hashicorp/$name/$version/linux_amd64
  mkdir -p "$d"
  ln -f "$bin" "$d/terraform-provider-${name}_v$version" 2>/dev/null || cp "$bin" "$d/terraform-provider-${name}_v$version"
}

write_config() {
  local aws_bin=$1 google_bin=$2 aws_pin google_pin
  aws_pin=$(pin aws)
  google_pin=$(pin gcp)
  [ -n "$aws_pin" ] && [ -n "$google_pin" ] || die "no provider version in terraform/aws or terraform/gcp versions.tf"
  rm -rf "$mirror_dir"
  mirror aws "$aws_bin" "$aws_pin"
  mirror google "$google_bin" "$google_pin"
  cat >"$rc.tmp" <<EOF
# Written by scripts/testenv/provider-builds.sh. Terraform installs the two
# providers from this mirror, where the builds stand under the versions the
# modules pin, and asks no registry for anything.
provider_installation {
  filesystem_mirror {
    path    = "$mirror_dir"
    include = ["registry.terraform.io/hashicorp/aws", "registry.terraform.io/hashicorp/google"]
  }
}
EOF
  mv "$rc.tmp" "$rc"
  python3 - "$frag" "$rc" "$aws_bin" "$aws_version" "$aws_source" "$aws_services" "$aws_pin" "$google_bin" "$google_version" "$google_source" "$google_pin" <<'PY'
import json, os, sys
frag, rc, ab, av, asrc, asvc, apin, gb, gv, gsrc, gpin = sys.argv[1:]
doc = {"provider_builds": {
    "cli_config": rc,
    "aws": {"binary": ab, "version": av, "source": asrc, "services": asvc.split(), "installed_as": apin},
    "google": {"binary": gb, "version": gv, "source": gsrc, "services": ["all"], "installed_as": gpin},
}}
tmp = frag + ".tmp"
with open(tmp, "w") as f:
    json.dump(doc, f, indent=2)
    f.write("\n")
os.replace(tmp, frag)
PY
}

case $cmd in
  up)
    command -v go >/dev/null || die "'go' is not on PATH"
    mkdir -p "$cache"
    # Two concurrent `make testenv` runs must not build the same binary twice.
    exec 9>"$cache/lock"
    flock 9
    build aws "$aws_module" "$aws_version"
    aws_bin=$built
    build google "$google_module" "$google_version"
    google_bin=$built
    write_config "$aws_bin" "$google_bin"
    ;;
  down) ;;
esac
