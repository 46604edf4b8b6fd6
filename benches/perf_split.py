#!/usr/bin/env python3
"""Where a search's CPU time goes: groups a perf profile's self time by stage.

usage: perf report -i perf.data --no-children --sort dso,symbol --stdio -g none \\
         | benches/perf_split.py

Record the profile while benches/mcp_latency.py searches (its --attach-seconds prints the
server's pid): perf record -e cpu-clock -F 2000 -g -p PID -- sleep 12
Stages are told apart by symbol names (candle/gemm = the query's embedding, VectorStore = the
vector search, milli/LMDB/roaring = the text rankings, rrf = fusion, ...).
"""
import collections, re, sys

STAGES = [
    ("kernel (waits, pipes, page faults)", lambda dso, sym: dso.startswith("[kernel")),
    ("query embedding (forward pass, tokenizer)",
     lambda dso, sym: re.search(r"gemm|candle|FastBert|embed::|tokenizers|erf|gelu|layer_norm|"
                                r"softmax|onig|esaxx|unicode_normalization", sym)),
    ("vector search (dot products)", lambda dso, sym: "vectors::" in sym),
    ("fusion (RRF)", lambda dso, sym: re.search(r"ranked::rrf|score_fusion", sym)),
    ("text rankings (milli, LMDB, bitmaps)",
     lambda dso, sym: re.search(r"milli|roaring|heed|mdb_|charabia|fst|levenshtein|obkv|"
                                r"bumpalo|memcmp|memmove|memset|memchr", sym)),
    ("rows, snippets, JSON, MCP",
     lambda dso, sym: re.search(r"serde_json|render|rmcp|tokio|rows::|chunk::", sym)),
    ("allocator", lambda dso, sym: re.search(r"malloc|free|_int_|realloc|unlink_chunk", sym)),
]


def main():
    totals = collections.Counter()
    for line in sys.stdin:
        m = re.match(r"\s+([0-9.]+)%\s+(\S+)\s+\[[.k]\]\s+(.*?)\s+-\s+-\s*$", line) \
            or re.match(r"\s+([0-9.]+)%\s+(\S+)\s+\[[.k]\]\s+(.*)", line)
        if not m:
            continue
        share, dso, sym = float(m.group(1)), m.group(2), m.group(3)
        stage = next((name for name, test in STAGES if test(dso, sym)), "other")
        totals[stage] += share
    for stage, share in totals.most_common():
        print(f"{share:6.2f}%  {stage}")


if __name__ == "__main__":
    main()
