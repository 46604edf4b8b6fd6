#!/usr/bin/env bash
# Rebuild times after a one-line change, for checkouts measured alternately in one run (this
# machine's speed drifts from day to day, so only figures taken side by side compare).
#
#   benches/build-times.sh ROUNDS 'LABEL=CHECKOUT:FILE:TEXT' ['LABEL=CHECKOUT:FILE:TEXT' ...]
#
# e.g. benches/build-times.sh 2 "before-mcp=/work/before:src/mcp/tools.rs:Unknown tool: " \
#        "after-mcp=.:crates/mcp/src/tools/mod.rs:Unknown tool: "
#
# Each checkout is built once first (not timed). Then, ROUNDS times and for each LABEL in turn,
# the first TEXT of FILE (text inside a string literal) gets " rN" appended, so that one line
# of code changes, and `cargo build --release` is timed: exactly that line changed since the
# checkout's last build. The files are restored at the end (the next build of each checkout
# rebuilds them once more). All checkouts share CARGO_TARGET_DIR, so the dependencies are built
# once and their build is not part of any figure. Two checkouts of the same workspace layout
# must not share one: cargo names a path package's artifacts by its path relative to the
# workspace root, so one checkout's build would overwrite the other's.
set -euo pipefail
rounds=$1
shift
declare -A seen=()
for spec in "$@"; do
    checkout=${spec#*=}
    checkout=${checkout%%:*}
    if [[ -z ${seen[$checkout]:-} ]]; then
        seen[$checkout]=1
        (cd "$checkout" && cargo build --release --quiet)
    fi
done
for round in $(seq 1 "$rounds"); do
    for spec in "$@"; do
        label=${spec%%=*}
        rest=${spec#*=}
        checkout=${rest%%:*}
        rest=${rest#*:}
        file=${rest%%:*}
        text=${rest#*:}
        python3 - "$checkout/$file" "$text" "$round" <<'EOF'
import sys
path, text, round_ = sys.argv[1:]
source = open(path).read()
if text not in source:
    sys.exit(f"{path} has no {text!r}")
open(path, "w").write(source.replace(text, f"{text} r{round_}", 1))
EOF
        start=$(date +%s.%N)
        (cd "$checkout" && cargo build --release --quiet)
        end=$(date +%s.%N)
        printf '%s\tround %s\t%.1f s\n' "$label" "$round" "$(echo "$end - $start" | bc)"
    done
done
for spec in "$@"; do
    rest=${spec#*=}
    file=${rest#*:}
    (cd "${rest%%:*}" && git checkout -- "${file%%:*}")
done
