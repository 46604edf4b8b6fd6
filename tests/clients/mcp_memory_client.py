"""An independent client of gitmem's memory API over stdio: the official MCP Python SDK,
making the calls of the gitmem specification in its own shapes (a `source` object, an update
with `patch`, a search with `filters` answering `{items, total}`, a delete answering
`{ok: true}`, an error carrying its code, a context pack citing its notes, and a correction
that hides what it supersedes).

Usage: mcp_memory_client.py GITMEM ROOT

It starts `GITMEM --root ROOT serve --tools gitmem`, makes the calls below in order (each
later call may use the id the first save returned), and prints on stdout a JSON summary for
the Rust test (tests/stdio_python.rs) to check.
"""

import asyncio
import json
import os
import sys

from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

SOURCE = {"agent": "claude", "session": "s-1", "origin": "chat", "app": "desktop"}


def steps(memory_id):
    return [
        ("memory_update", {"id": memory_id, "patch": {"tags": ["ui", "editor"], "score": 0.9}}),
        ("memory_search", {"query": "dark mode", "filters": {"type": ["preference"], "tags": ["ui"]}}),
        ("memory_search", {"filters": {"type": ["fact"]}}),
        ("memory_delete", {"id": memory_id}),
        ("memory_get", {"id": "no-such-memory"}),
        ("memory_save", {"content": "Releases are cut on Fridays", "type": "decision"}),
        ("memory_context", {"task": "when are releases cut", "token_budget": 300}),
        (
            "correct_memory",
            {"identifier": "Releases are cut on Fridays", "content": "Releases are cut on Thursdays",
             "reason": "the release day moved"},
        ),
        ("memory_search", {"query": "releases"}),
        ("memory_search", {"query": "releases", "include_superseded": True}),
    ]


def summary(name, arguments, result):
    return {
        "tool": name,
        "arguments": arguments,
        "error": result.is_error,
        "structured": result.structured_content,
        "text": "".join(getattr(block, "text", "") for block in result.content),
        "links": [str(block.uri) for block in result.content if block.type == "resource_link"],
    }


async def main(gitmem, root):
    # The server gets this process's environment (the SDK passes only a few variables by
    # default), so the test's HF_HUB_OFFLINE keeps it from fetching a model.
    server = StdioServerParameters(
        command=gitmem, args=["--root", root, "serve", "--tools", "gitmem"], env=dict(os.environ)
    )
    async with stdio_client(server) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            save = {"content": "The user prefers dark mode", "type": "preference", "source": SOURCE}
            saved = await session.call_tool("memory_save", save)
            calls = [summary("memory_save", save, saved)]
            memory_id = saved.structured_content["id"]
            for name, arguments in steps(memory_id):
                result = await session.call_tool(name, arguments)
                calls.append(summary(name, arguments, result))
            print(json.dumps({"calls": calls}))


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2]))
