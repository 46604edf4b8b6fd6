"""An independent client of gitmem's memories that age, over stdio: the official MCP Python SDK
saves decaying and low-value memories with old times, reads one (a use that reinforces it),
prunes (a dry run, then for real), compacts, opens a folded memory as a graph entity (hidden
unless asked for), and searches with a boost.

Usage: mcp_decay_client.py GITMEM ROOT

It starts `GITMEM --root ROOT serve --tools basic,gitmem,graph`, makes the calls below in order, and
prints on stdout a JSON summary for the Rust test (tests/stdio_python.rs) to check.
"""

import asyncio
import json
import os
import sys
from datetime import datetime, timedelta, timezone

from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client


def days_ago(days):
    return (datetime.now(timezone.utc) - timedelta(days=days)).strftime("%Y-%m-%dT%H:%M:%SZ")


SAVES = [
    {"content": "Kookaburra laugh at dawn", "decay": "P7D", "created_at": days_ago(35)},
    {"content": "Kookaburra nest in tree hollows", "decay": "P7D", "created_at": days_ago(35)},
    {"content": "Kookaburra are kingfishers", "score": 0.2, "created_at": days_ago(90)},
]


def summary(name, arguments, result):
    return {
        "tool": name,
        "arguments": arguments,
        "error": result.is_error,
        "structured": result.structured_content,
    }


async def main(gitmem, root):
    server = StdioServerParameters(
        command=gitmem,
        args=["--root", root, "serve", "--tools", "basic,gitmem,graph"],
        env=dict(os.environ),
    )
    async with stdio_client(server) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            calls = []

            async def call(name, arguments):
                result = await session.call_tool(name, arguments)
                calls.append(summary(name, arguments, result))
                return result.structured_content

            ids = [(await call("memory_save", save))["id"] for save in SAVES]
            await call("memory_get", {"id": ids[0]})
            await call("memory_get", {"id": ids[0]})
            await call("memory_prune", {"dry_run": True})
            await call("memory_prune", {})
            await call("memory_compact", {"older_than": "P30D", "dry_run": True})
            await call("memory_compact", {"older_than": "P30D"})
            folded = {"names": ["Kookaburra are kingfishers"]}
            await call("open_nodes", folded)
            await call("open_nodes", {**folded, "include_superseded": True})
            # Last: a search is a use of every memory it finds.
            await call("search_notes", {"query": "kookaburra", "boost": ["recency", "score"]})
            print(json.dumps({"ids": ids, "calls": calls}))


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2]))
