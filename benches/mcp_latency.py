#!/usr/bin/env python3
"""Latency of gitmem's MCP tools over stdio on a generated vault.

usage: benches/mcp_latency.py [--notes 10000] [--writes 500] [--queries 300]
                              [--model SOURCE] [--attach-seconds N] [--root DIR] [--check]
                              [--queries-from GOLDEN.json] [--entity-types TYPES]

Generates the vault with `gitmem bench generate` (cached under $TMPDIR), registers it as
the default project of a fresh data root, starts `gitmem serve`, waits until the initial index
is done, then times, as seen by the client (request written -> response read):
  - write_note (new notes, concurrency 1)
  - search_notes (1-3 words from the vault's vocabulary, limit 10; hybrid when a model is
    installed, else text)
  - search_notes 0.2 s after a write, each (--after-writes, default 60)
  - build_context depth 2 and read_note (random notes: the ones search found and the ones the
    benchmark wrote)
--model installs a model (any `gitmem model install` SOURCE, e.g. an installed model's folder)
before the index is built, so that every note is embedded before the server starts.
--attach-seconds prints the server's pid and waits that long before the searches, time to
attach a profiler (`perf record -e cpu-clock -g -p PID`).
--root serves an existing data root as it is (its default project the generated vault).
--queries-from takes the search_notes queries from a retrieval set (`gitmem bench retrieval`'s
--golden format: a JSON list of {"query": ...}) instead of 1-3 vocabulary words: with --root
(a root that `bench retrieval --keep-root` left), the latency of real questions on that vault.
--entity-types asks the timed searches for these rows (comma-separated: entity, observation,
relation; default the tool's own, notes).
--check exits 1, naming each figure, when one is over the design's budget (set for 10,000
notes, and applied as they are to any size): write_note p50 5 ms and p99 50 ms, search_notes
p95 10 ms, build_context p95 15 ms.
Needs a release build (cargo build --release).
"""
import argparse, json, os, random, shutil, statistics, subprocess, sys, tempfile, time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
WORDS = ("memory index search vault note graph link sync folder project context rust markdown "
         "parser token query filter cache journal permalink title relation observation tag schema "
         "latency throughput replica commit branch design decision meeting roadmap release bug fix "
         "test benchmark storage engine lmdb watcher poll checksum jitter canvas agent client server "
         "protocol session prompt resource template migration import export").split()


def binary():
    target = os.environ.get("CARGO_TARGET_DIR", os.path.join(REPO, "target"))
    path = os.path.join(target, "release", "gitmem")
    if not os.path.exists(path):
        sys.exit("build first: cargo build --release")
    return path


class Client:
    def __init__(self, cmd):
        self.p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.DEVNULL, text=True, bufsize=1)
        self.id = 0

    def request(self, method, params):
        self.id += 1
        self.p.stdin.write(json.dumps({"jsonrpc": "2.0", "id": self.id, "method": method, "params": params}) + "\n")
        self.p.stdin.flush()
        while True:
            msg = json.loads(self.p.stdout.readline())
            if msg.get("id") == self.id:
                return msg

    def call(self, tool, args):
        start = time.perf_counter()
        msg = self.request("tools/call", {"name": tool, "arguments": args})
        elapsed = (time.perf_counter() - start) * 1000
        if "error" in msg or msg["result"].get("isError"):
            sys.exit(f"{tool} failed: {msg}")
        # A reply may carry resource links beside its text; the text is the answer.
        texts = [c["text"] for c in msg["result"]["content"] if c.get("type") == "text"]
        return elapsed, texts[0] if texts else ""

    def close(self):
        self.p.stdin.close()
        self.p.wait(timeout=30)


# Each measure's budgets as (percentile, ms), from the design document's section 9.
BUDGETS = {
    "write_note": [(50, 5.0), (99, 50.0)],
    "search_notes": [(95, 10.0)],
    "build_context depth=2": [(95, 15.0)],
}


def pct(values, p):
    values = sorted(values)
    k = max(0, min(len(values) - 1, round(p / 100 * (len(values) - 1))))
    return values[k]


def report(name, values):
    if not values:
        return
    print(f"{name:28} n={len(values):4}  p50 {pct(values, 50):6.2f} ms  p95 {pct(values, 95):6.2f} ms"
          f"  p99 {pct(values, 99):6.2f} ms  max {max(values):6.2f} ms")


def over_budget(measured):
    """The figures over their budget, and the budgeted measures with no figure, as lines."""
    missing = [f"{name}: not measured" for name in BUDGETS if not measured.get(name)]
    return missing + [f"{name} p{p} {pct(measured[name], p):.2f} ms > {budget:g} ms"
                      for name, limits in BUDGETS.items() if measured.get(name)
                      for p, budget in limits if pct(measured[name], p) > budget]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--notes", type=int, default=10000)
    ap.add_argument("--writes", type=int, default=500)
    ap.add_argument("--queries", type=int, default=300)
    ap.add_argument("--model")
    ap.add_argument("--attach-seconds", type=float, default=0)
    ap.add_argument("--root", help="an existing data root to serve as it is (no copy, no reindex)")
    ap.add_argument("--after-writes", type=int, default=60,
                    help="searches made 0.2 s after a write each")
    ap.add_argument("--queries-from", help="a retrieval set whose questions are the searches")
    ap.add_argument("--entity-types", help="rows the timed searches ask for, comma-separated")
    ap.add_argument("--check", action="store_true",
                    help="exit 1 when a figure is over the design's budget")
    a = ap.parse_args()
    work = os.path.join(tempfile.gettempdir(), f"gitmem-bench-{a.notes}")
    gitmem = binary()
    vault = os.path.join(tempfile.gettempdir(), f"gitmem-vault-{a.notes}")
    if not os.path.isdir(vault):
        subprocess.run([gitmem, "bench", "generate", vault, "--notes", str(a.notes)],
                       check=True, stdout=subprocess.DEVNULL)
    root = a.root or os.path.join(work, "mcp-root")
    if not a.root:
        shutil.rmtree(root, ignore_errors=True)
        # The benchmark writes notes: work on a copy, keep the generated vault pristine.
        project = os.path.join(root, "vault")
        shutil.copytree(vault, project)
        subprocess.run([gitmem, "--root", root, "project", "add", "vault", project, "--default"],
                       check=True, stdout=subprocess.DEVNULL)
        if a.model:
            subprocess.run([gitmem, "--root", root, "model", "install", a.model], check=True,
                           stdout=subprocess.DEVNULL)
        subprocess.run([gitmem, "--root", root, "reindex"], check=True, stdout=subprocess.DEVNULL)
    client = Client([gitmem, "--root", root, "serve"])
    client.request("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                  "clientInfo": {"name": "bench", "version": "1"}})
    client.p.stdin.write(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}) + "\n")
    client.p.stdin.flush()
    while "ready for use" not in client.call("sync_status", {})[1]:
        time.sleep(0.2)
    rng = random.Random(7)
    print(f"vault: {a.notes} notes; {os.cpu_count()} cores; model: {a.model or ('as installed in the root' if a.root else 'none')}; root {root}")

    # Warm-up, not measured.
    for _ in range(20):
        client.call("search_notes", {"query": rng.choice(WORDS)})

    writes = []
    permalinks = []
    for i in range(a.writes):
        body = " ".join(rng.choice(WORDS) for _ in range(60))
        t, text = client.call("write_note", {"title": f"Bench Note {i}", "directory": "bench",
                                             "content": f"# Bench {i}\n\n{body}\n\n- [fact] {rng.choice(WORDS)} #bench\n- relates_to [[Bench Note {max(0, i - 1)}]]\n"})
        writes.append(t)
        permalinks += [line.split(": ", 1)[1] for line in text.splitlines() if line.startswith("permalink: ")]

    # The searches measure a settled index: the writes' embeddings are done first.
    while "notes done" in client.call("sync_status", {})[1]:
        time.sleep(0.5)
    if a.attach_seconds:
        print(f"server pid {client.p.pid}; searching in {a.attach_seconds} s", flush=True)
        time.sleep(a.attach_seconds)
    questions = None
    if a.queries_from:
        with open(a.queries_from) as f:
            questions = [q["query"] for q in json.load(f)]
    searches = []
    for _ in range(a.queries):
        if questions:
            q = rng.choice(questions)
        else:
            q = " ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 3)))
        args = {"query": q}
        if a.entity_types:
            args["entity_types"] = a.entity_types.split(",")
        t, _ = client.call("search_notes", args)
        searches.append(t)

    # A memory's usual rhythm: write, then soon search. The search meets the write's indexing
    # (and, with a model, its embedding) still under way.
    after_writes = []
    stamp = int(time.time())
    for i in range(a.after_writes):
        body = " ".join(rng.choice(WORDS) for _ in range(40))
        client.call("write_note", {"title": f"After Write {stamp} {i}", "directory": "after",
                                   "content": body})
        time.sleep(0.2)
        t, _ = client.call("search_notes", {"query": " ".join(rng.choice(WORDS) for _ in range(2))})
        after_writes.append(t)

    for _ in range(40):
        _, text = client.call("search_notes", {"query": rng.choice(WORDS), "output_format": "json", "page_size": 10})
        permalinks += [r["permalink"] for r in json.loads(text).get("results", []) if r.get("permalink")]
    if not permalinks:
        sys.exit("no note to read: the searches found none and no note was written (--writes 0?)")
    contexts = []
    for _ in range(a.queries):
        t, _ = client.call("build_context", {"url": f"memory://{rng.choice(permalinks)}", "depth": 2})
        contexts.append(t)
    reads = []
    for _ in range(a.queries):
        t, _ = client.call("read_note", {"identifier": rng.choice(permalinks)})
        reads.append(t)
    client.close()

    measured = {"write_note": writes, "search_notes": searches,
                "search 0.2 s after a write": after_writes, "build_context depth=2": contexts,
                "read_note": reads}
    for name, values in measured.items():
        report(name, values)
    if a.check:
        over = over_budget(measured)
        for line in over:
            print(f"over budget: {line}")
        if over:
            sys.exit(1)
        print("all within budget")


if __name__ == "__main__":
    main()
