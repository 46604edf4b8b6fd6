#!/usr/bin/env bash
# `gitmem import jsonl` of N generated memory records into a fresh root: wall time, records a
# second and peak RSS (GNU time), then a search that finds one of them.
#
#   benches/import-jsonl.sh [RECORDS]     (default: 100000)
#
# Needs: a release build (cargo build --release), python3 and GNU time (/usr/bin/time). The
# records are made by a seeded generator (same RECORDS, same file), cached under $TMPDIR.
set -euo pipefail
records="${1:-100000}"
here="$(cd "$(dirname "$0")/.." && pwd)"
bin="${CARGO_TARGET_DIR:-$here/target}/release/gitmem"
work="${TMPDIR:-/tmp}/gitmem-import-$records"
[ -x "$bin" ] || { echo "build first: cargo build --release" >&2; exit 1; }
mkdir -p "$work"
file="$work/records.jsonl"
if [ ! -f "$file" ]; then
  python3 - "$records" "$file" <<'PY'
import json, random, sys
n, path = int(sys.argv[1]), sys.argv[2]
rng = random.Random(7)
words = ("memory note agent session project search index graph link vault decision fact "
         "preference meeting deadline budget design review release backup server client").split()
kinds = ["fact", "decision", "preference", "event", "note"]
with open(path, "w") as out:
    for i in range(n):
        body = " ".join(rng.choice(words) for _ in range(40))
        out.write(json.dumps({"id": f"rec-{i}", "title": f"Record {i} {rng.choice(words)}",
                              "content": f"{body} marker{i}", "type": rng.choice(kinds),
                              "tags": rng.sample(words, 2), "score": round(rng.random(), 2),
                              "source": {"agent": "bench", "origin": "import"}}) + "\n")
PY
fi
root="$work/root"
rm -rf "$root"
mkdir -p "$root/projects/main"
/usr/bin/time -f "%e %M" -o "$work/time" "$bin" --root "$root" import jsonl "$file" >/dev/null
read -r wall rss < "$work/time"
echo "imported $records records in ${wall} s: $(python3 -c "print(round($records / $wall))") records/s, peak RSS $((rss / 1024)) MB"
"$bin" --root "$root" search "marker$((records - 1))" | sed -n 4,5p
