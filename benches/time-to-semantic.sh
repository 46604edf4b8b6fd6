#!/usr/bin/env bash
# Time to semantic search on a fresh root: `gitmem reindex` of a generated vault with a
# transformer installed as the default model, while `gitmem status --json` is polled from a
# second process. Prints when every note became searchable by meaning (the quick stage done),
# checks that a vector search answers then, and the transformer's rate over the next minute.
# The reindex is stopped there (the transformer alone would take many minutes).
#
#   benches/time-to-semantic.sh MODEL [NOTES]     (MODEL: a folder, zip or wheel `gitmem model
#                                                  install` takes; NOTES defaults to 10000)
#
# Run it twice: the first run distils the quick stage's model (kept in MODEL's installed
# folder, which this script keeps in $TMPDIR between runs and links into each fresh root), the
# second reuses it.
set -euo pipefail
model="$1"
notes="${2:-10000}"
here="$(cd "$(dirname "$0")/.." && pwd)"
bin="${CARGO_TARGET_DIR:-$here/target}/release/gitmem"
work="${TMPDIR:-/tmp}/gitmem-semantic-$notes"
vault="${TMPDIR:-/tmp}/gitmem-vault-$notes"
[ -x "$bin" ] || { echo "build first: cargo build --release" >&2; exit 1; }
command -v jq >/dev/null || { echo "needs jq" >&2; exit 1; }
mkdir -p "$work"
[ -d "$vault" ] || "$bin" bench generate "$vault" --notes "$notes" >/dev/null
models="$work/models"
if [ ! -d "$models" ]; then
  "$bin" --root "$work/install" model install "$model" >/dev/null
  mv "$work/install/models" "$models"
fi
root="$work/root"
rm -rf "$root"
"$bin" --root "$root" project add vault "$vault" --default >/dev/null
ln -s "$models" "$root/models"
distilled=$([ -n "$(find "$models" -maxdepth 2 -name quick -type d)" ] && echo yes || echo no)
echo "vault: $notes notes in $vault; $(nproc) cores; quick stage's model already distilled: $distilled"
start=$(date +%s%N)
elapsed() { echo "scale=1; ($(date +%s%N) - $start) / 1000000000" | bc; }
"$bin" --root "$root" reindex --project vault >"$work/reindex.log" 2>&1 &
reindex=$!
trap 'kill $reindex 2>/dev/null || true' EXIT
state() { "$bin" --root "$root" status --json 2>/dev/null | jq -c '.semantic' || echo '{}'; }
while kill -0 $reindex 2>/dev/null; do
  s=$(state)
  waiting=$(jq -r '(.notes // 0) - (.notes_embedded // 0)' <<<"$s")
  quick=$(jq -r '.quick_stage.notes_embedded // 0' <<<"$s")
  total=$(jq -r '.notes // 0' <<<"$s")
  if [ "$total" -ge "$notes" ] && [ "$quick" -ge "$waiting" ]; then
    echo "every note searchable by meaning after $(elapsed) s ($(jq -r .notes_embedded <<<"$s") by the model, $quick by the quick stage)"
    hits=$("$bin" --root "$root" tool search_notes --args '{"query": "how do files get noticed when they change", "search_type": "vector"}' | grep -c '^### ' || true)
    echo "a vector search then answers with $hits results"
    first=$(jq -r .notes_embedded <<<"$s"); t0=$(date +%s%N)
    sleep 60
    last=$(jq -r .notes_embedded <<<"$(state)")
    echo "the model then embedded $(( last - first )) notes in $(echo "scale=1; ($(date +%s%N) - $t0) / 1000000000" | bc) s"
    exit 0
  fi
  sleep 2
done
echo "reindex ended before every note was searchable by meaning:" >&2
cat "$work/reindex.log" >&2
exit 1
