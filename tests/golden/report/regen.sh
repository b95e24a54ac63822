#!/bin/sh
# Regenerate the report fixture and goldens.  Run from anywhere after a
# build; BUILD defaults to build/ at the top of the tree.
#   tests/golden/report/regen.sh            # goldens only (from fixture.jsonl)
#   tests/golden/report/regen.sh --fixture  # rerun the sweep first
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../.." && pwd)
build=${BUILD:-$top/build}
if [ "${1:-}" = "--fixture" ]; then
  tmp=$(mktemp -d)
  "$build/slabsim" sweep "$here/fixture.yaml" --jobs 2 -o "$tmp"
  cp "$tmp/results.jsonl" "$here/fixture.jsonl"
  rm -rf "$tmp"
fi
SLABSIM_UPDATE_GOLDEN=1 meson test -C "$build" --suite sweep test-report
