#!/bin/sh
# doc-script.sh - docs/cluster.md shows scripts/slurm-sweep.sbatch, the
# script tests/cluster/slurm-sweep.sh submits, byte for byte: the ```sh
# block that begins with its first two lines must be the whole file.
# Runs everywhere (no Slurm needed).  TAP on stdout.
set -u
SRC=${SLABSIM_SOURCE_ROOT:?}
doc=$SRC/docs/cluster.md
script=$SRC/scripts/slurm-sweep.sbatch
echo "1..1"
tmp=$(mktemp) || { echo "not ok 1 - mktemp failed"; exit 1; }
trap 'rm -f "$tmp"' EXIT
second=$(sed -n 2p "$script")
awk -v second="$second" '
  inblock && /^```$/ { exit }
  inblock { print }
  prev == "```sh" && $0 == "#!/bin/sh" { getline nxt; if (nxt == second) { inblock = 1; print; print nxt } }
  { prev = $0 }
' "$doc" >"$tmp"
if [ ! -s "$tmp" ]; then
  echo "docs/cluster.md has no \`\`\`sh block starting with the first lines of $script" >&2
  echo "not ok 1 - docs/cluster.md shows scripts/slurm-sweep.sbatch"
  exit 1
fi
if cmp -s "$tmp" "$script"; then
  echo "ok 1 - docs/cluster.md shows scripts/slurm-sweep.sbatch byte for byte"
else
  diff -u "$script" "$tmp" >&2
  echo "not ok 1 - docs/cluster.md shows scripts/slurm-sweep.sbatch byte for byte"
  exit 1
fi
