#!/usr/bin/env python3
"""write_note throughput over HTTP with concurrent clients, and search latency under that load.

usage: benches/http_load.py [--clients 16] [--notes-per-client 200] [--searches 300]
                            [--vault-notes 1000]

Starts `gitmem serve --transport http` on a loopback port over a fresh data root whose default
project is a generated vault (`gitmem bench generate`, --vault-notes notes; 0 for an empty
project), waits for the initial index, then runs --clients writer threads, each writing
--notes-per-client new notes with write_note, while one more client, with a token of its own,
searches (search_notes, 1-3 vocabulary words) as fast as it can. Every request is a stateless MCP request of protocol
2026-07-28 with a bearer token, as seen by the client (request sent -> response read). Prints
notes/s (all writes, wall clock) and the search latency percentiles under load, then the same
searches with no load for comparison. Standard library only. Needs a release build.
"""
import argparse, json, os, random, shutil, socket, subprocess, sys, tempfile
import threading, time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from mcp_latency import WORDS, binary, report  # noqa: E402

VERSION = "2026-07-28"


class Client:
    """One keep-alive connection sending stateless MCP requests.

    HTTP/1.1 by hand over a socket: the load generator shares the server's cores, and
    http.client spent more CPU a request than this (measured in docs/performance-http.md).
    """

    def __init__(self, port, token):
        self.socket = socket.create_connection(("127.0.0.1", port), timeout=120)
        self.socket.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.head = (
            f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
            f"Authorization: Bearer {token}\r\nContent-Type: application/json\r\n"
            "Accept: application/json, text/event-stream\r\n"
            f"MCP-Protocol-Version: {VERSION}\r\nMcp-Method: tools/call\r\n"
        )
        self.buffer = b""
        self.next_id = 1

    def call(self, tool, arguments):
        body = json.dumps({
            "jsonrpc": "2.0", "id": self.next_id, "method": "tools/call",
            "params": {"name": tool, "arguments": arguments, "_meta": {
                "io.modelcontextprotocol/protocolVersion": VERSION,
                "io.modelcontextprotocol/clientCapabilities": {}}},
        }).encode()
        self.next_id += 1
        request = (f"{self.head}Mcp-Name: {tool}\r\nContent-Length: {len(body)}\r\n\r\n"
                   .encode() + body)
        started = time.perf_counter()
        self.socket.sendall(request)
        status, payload = self.response()
        elapsed = (time.perf_counter() - started) * 1000
        if status != 200:
            raise RuntimeError(f"{tool}: HTTP {status}: {payload[:200]!r}")
        result = json.loads(payload)
        if "error" in result or result["result"].get("isError"):
            raise RuntimeError(f"{tool}: {payload[:300]!r}")
        return elapsed

    def response(self):
        """The status and body of one response with a Content-Length (what /mcp sends)."""
        while b"\r\n\r\n" not in self.buffer:
            self.receive()
        head, self.buffer = self.buffer.split(b"\r\n\r\n", 1)
        lines = head.split(b"\r\n")
        status = int(lines[0].split()[1])
        lengths = [int(line.split(b":", 1)[1]) for line in lines[1:]
                   if line.lower().startswith(b"content-length:")]
        if not lengths:
            raise RuntimeError(f"a response without Content-Length: {head[:300]!r}")
        length = lengths[0]
        while len(self.buffer) < length:
            self.receive()
        body, self.buffer = self.buffer[:length], self.buffer[length:]
        return status, body

    def receive(self):
        chunk = self.socket.recv(65536)
        if not chunk:
            raise RuntimeError("the server closed the connection")
        self.buffer += chunk


def cpu_seconds(pid):
    """User + system CPU seconds process `pid` has used so far (Linux /proc)."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    # utime and stime are fields 14 and 15; fields[0] is field 3 (state).
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--notes-per-client", type=int, default=200)
    parser.add_argument("--searches", type=int, default=300)
    parser.add_argument("--vault-notes", type=int, default=1000)
    args = parser.parse_args()
    gitmem = binary()
    root = tempfile.mkdtemp(prefix="gitmem-http-load-")
    try:
        project = os.path.join(root, "projects", "main")
        if args.vault_notes:
            subprocess.run([gitmem, "bench", "generate", project, "--notes", str(args.vault_notes)],
                           check=True, stdout=subprocess.DEVNULL)
        else:
            os.makedirs(project)
        subprocess.run([gitmem, "--root", root, "reindex"], check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        # The reader is a client of its own (its own token): with read-your-writes its
        # searches wait for its own writes only, never for the writers'.
        token, reader_token = (
            subprocess.run([gitmem, "--root", root, "token", "create", name], check=True,
                           capture_output=True, text=True).stdout.strip()
            for name in ("bench", "reader"))
        server = subprocess.Popen([gitmem, "--root", root, "serve", "--transport", "http",
                                   "--bind", "127.0.0.1:0"], stderr=subprocess.PIPE, text=True)
        port = None
        for line in server.stderr:
            if "serving MCP at" in line:
                port = int(line.rsplit(":", 1)[1].split("/")[0])
                break
        threading.Thread(target=lambda: [None for _ in server.stderr], daemon=True).start()
        try:
            rng = random.Random(7)
            queries = [" ".join(rng.sample(WORDS, rng.randint(1, 3))) for _ in range(args.searches)]
            searcher = Client(port, reader_token)
            searcher.call("search_notes", {"query": "warm up"})
            writes, write_errors, loaded_searches = [], [], []
            done = threading.Event()

            def writer(n):
                client = Client(port, token)
                for i in range(args.notes_per_client):
                    try:
                        writes.append(client.call("write_note", {
                            "title": f"load {n} {i}", "directory": f"load/{n}",
                            "content": f"note {i} of writer {n}: {' '.join(rng.sample(WORDS, 8))}"}))
                    except Exception as e:  # noqa: BLE001 - reported below
                        write_errors.append(str(e))

            def search_under_load():
                i = 0
                while not done.is_set():
                    loaded_searches.append(searcher.call("search_notes", {"query": queries[i % len(queries)]}))
                    i += 1

            threads = [threading.Thread(target=writer, args=(n,)) for n in range(args.clients)]
            searching = threading.Thread(target=search_under_load)
            started = time.perf_counter()
            client_cpu, server_cpu = sum(os.times()[:2]), cpu_seconds(server.pid)
            searching.start()
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            wall = time.perf_counter() - started
            client_cpu = sum(os.times()[:2]) - client_cpu
            server_cpu = cpu_seconds(server.pid) - server_cpu
            done.set()
            searching.join()
            if write_errors:
                sys.exit(f"{len(write_errors)} writes failed, first: {write_errors[0]}")
            total = args.clients * args.notes_per_client
            print(f"{args.clients} clients wrote {total} notes in {wall:.2f} s: {total / wall:.0f} notes/s")
            # Both share the machine's cores: whether the load generator itself is the limit.
            print(f"CPU while writing: server {server_cpu:.1f} s ({server_cpu / wall:.2f} cores, "
                  f"{server_cpu * 1000 / total:.2f} ms a note), "
                  f"this client {client_cpu:.1f} s ({client_cpu / wall:.2f} cores), "
                  f"{os.cpu_count()} cores")
            report("write_note under load", writes)
            report("search_notes under load", loaded_searches)
            report("search_notes without load",
                   [searcher.call("search_notes", {"query": q}) for q in queries])
        finally:
            server.terminate()
            server.wait(timeout=60)
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
