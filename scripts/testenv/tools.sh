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
set -euo pipefail

terraform_version=1.5.7
tflint_version=0.64.0

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

write_fragment() {
  python3 - "$frag" "$bin/terraform" "$bin" "$bin/tflint" <<'PY'
import json, os, sys
out, terraform, bin_dir, tflint = sys.argv[1:]
tmp = out + ".tmp"
with open(tmp, "w") as f:
    json.dump({"terraform": terraform, "bin_dir": bin_dir, "tflint": tflint}, f, indent=2)
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
    write_fragment
    ;;
  down) ;;
  *) usage ;;
esac
