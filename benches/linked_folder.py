#!/usr/bin/env python3
"""Linked-folder budgets on a generated vault (design 9).

usage: benches/linked_folder.py [--notes 10000] [--idle-seconds 60]

1. Links the vault (a copy under a temporary HOME) and times `gitmem rescan-links` of the
   unchanged vault three times (the report's runtimeMs and the whole command's wall time).
2. Starts `gitmem serve` with the link polled every 1000 ms, writes a new file into the vault
   and times until search_notes finds it.
3. Relinks with the default 30 s poll, waits for the initial index, and measures the server's
   CPU time (utime + stime from /proc) over an idle window.
Needs a release build (cargo build --release).
"""
import argparse, json, os, shutil, subprocess, sys, tempfile, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mcp_latency import Client, binary, REPO  # noqa: E402


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--notes", type=int, default=10000)
    ap.add_argument("--idle-seconds", type=int, default=60)
    a = ap.parse_args()
    gitmem = binary()
    cache = os.path.join(tempfile.gettempdir(), f"gitmem-vault-{a.notes}")
    if not os.path.isdir(cache):
        subprocess.run([gitmem, "bench", "generate", cache, "--notes", str(a.notes)],
                       check=True, stdout=subprocess.DEVNULL)
    work = tempfile.mkdtemp(prefix="gitmem-links-")
    home = os.path.join(work, "home")
    vault = os.path.join(home, "Vault")
    shutil.copytree(cache, vault)
    root = os.path.join(work, "root")
    env = dict(os.environ, HOME=home)
    run = lambda *args: subprocess.run([gitmem, "--root", root, *args], env=env, check=True, capture_output=True, text=True)
    print(f"vault: {a.notes} notes; {os.cpu_count()} cores")

    start = time.perf_counter()
    run("link-folder", "--project", "main", "--path", vault, "--poll-interval", "1000")
    print(f"link-folder (first scan, indexing) {time.perf_counter() - start:.2f} s")
    for i in range(3):
        start = time.perf_counter()
        out = json.loads(run("rescan-links", "--json").stdout)
        wall = (time.perf_counter() - start) * 1000
        r = out["reports"][0]
        print(f"unchanged rescan {i + 1}: runtimeMs {r['runtimeMs']} ms, whole command {wall:.0f} ms, scanned {r['scanned']}")

    client = Client(["env", f"HOME={home}", gitmem, "--root", root, "serve"])
    client.request("initialize", {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}})
    while "ready for use" not in client.call("sync_status", {})[1]:
        time.sleep(0.2)
    for i, word in enumerate(["quokkaprobe", "wallabyprobe", "numbatprobe"]):
        with open(os.path.join(vault, f"Probe {i}.md"), "w") as f:
            f.write(f"# Probe {i}\n\n{word}\n")
        start = time.perf_counter()
        while json.loads(client.call("search_notes", {"query": word, "output_format": "json"})[1])["total"] == 0:
            time.sleep(0.02)
        print(f"new file searchable {(time.perf_counter() - start) * 1000:.0f} ms after it was written (poll every ~1000 ms)")
    client.close()

    run("link-folder", "--project", "main", "--path", vault, "--poll-interval", "30000")
    client = Client(["env", f"HOME={home}", gitmem, "--root", root, "serve"])
    client.request("initialize", {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}})
    while "ready for use" not in client.call("sync_status", {})[1]:
        time.sleep(0.2)
    time.sleep(2)
    server = client.p.pid  # `env` execs gitmem in place
    before = cpu_seconds(server)
    time.sleep(a.idle_seconds)
    used = cpu_seconds(server) - before
    print(f"idle serve, 30 s poll: {used:.2f} s CPU in {a.idle_seconds} s = {100 * used / a.idle_seconds:.2f}% of one core")
    client.close()
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
