#!/usr/bin/env bash
# Cold reindex of a generated vault: wall time and peak RSS of `gitmem reindex` on a fresh
# root, then the time of a `gitmem search` that first rescans the unchanged vault.
#
#   benches/cold-reindex.sh [NOTES] [RUNS]     (defaults: 10000 notes, 3 runs)
#
# Needs: a release build (cargo build --release) and GNU time (/usr/bin/time). The vault is
# `gitmem bench generate`'s, cached under $TMPDIR.
set -euo pipefail
notes="${1:-10000}"
runs="${2:-3}"
here="$(cd "$(dirname "$0")/.." && pwd)"
bin="${CARGO_TARGET_DIR:-$here/target}/release/gitmem"
work="${TMPDIR:-/tmp}/gitmem-bench-$notes"
vault="${TMPDIR:-/tmp}/gitmem-vault-$notes"
[ -x "$bin" ] || { echo "build first: cargo build --release" >&2; exit 1; }
mkdir -p "$work"
if [ ! -d "$vault" ]; then
  "$bin" bench generate "$vault" --notes "$notes" >/dev/null
fi
echo "vault: $notes notes, $(du -sh "$vault" | cut -f1) in $vault; $(nproc) cores"
for run in $(seq 1 "$runs"); do
  root="$work/root"
  rm -rf "$root"
  "$bin" --root "$root" project add vault "$vault" --default >/dev/null
  /usr/bin/time -f "%e %M" -o "$work/time" "$bin" --root "$root" reindex --project vault >/dev/null
  read -r wall rss < "$work/time"
  start=$(date +%s%N)
  "$bin" --root "$root" search "watcher checksum" >/dev/null
  rescan_ms=$(( ($(date +%s%N) - start) / 1000000 ))
  echo "run $run: cold reindex ${wall} s, peak RSS $((rss / 1024)) MB; unchanged rescan + search ${rescan_ms} ms; index $(du -sh "$root/index" | cut -f1)"
done
