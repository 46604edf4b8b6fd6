#!/usr/bin/env bash
# Rebuild times after a one-line change, for checkouts measured alternately in one run (this
# machine's speed drifts from day to day, so only figures taken side by side compare).
#
#   benches/build-times.sh ROUNDS LABEL=CHECKOUT:FILE [LABEL=CHECKOUT:FILE ...]
#
# e.g. benches/build-times.sh 2 before-mcp=/work/before:src/mcp/tools.rs \
#        after-mcp=.:crates/mcp/src/tools.rs
#
# Each checkout is built once first (not timed). Then, ROUNDS times and for each LABEL in turn,
# one comment line is appended to FILE and `cargo build --release` is timed: exactly one file
# changed since that checkout's last build. The files are restored at the end (the next build
# of each checkout rebuilds them once more). All checkouts share CARGO_TARGET_DIR, so the
# dependencies are built once and their build is not part of any figure.
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
        file=${rest#*:}
        echo "// build-times: round $round" >>"$checkout/$file"
        start=$(date +%s.%N)
        (cd "$checkout" && cargo build --release --quiet)
        end=$(date +%s.%N)
        printf '%s\tround %s\t%.1f s\n' "$label" "$round" "$(echo "$end - $start" | bc)"
    done
done
for spec in "$@"; do
    rest=${spec#*=}
    (cd "${rest%%:*}" && git checkout -- "${rest#*:}")
done
