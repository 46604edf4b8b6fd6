"""An independent Basic Memory 0.24 client over stdio: the official MCP Python SDK writes a
note, reads its checksum, replaces it on that revision, then tries again on the stale one;
it also meets the refusals Basic Memory 0.24 raises, and reads a note by lines.

Usage: mcp_revision_client.py GITMEM ROOT

It starts `GITMEM --root ROOT serve`, calls the steps below in order and prints on stdout a
JSON summary for the Rust test (tests/process/stdio_python.rs) to check.
"""

import asyncio
import json
import sys

from stdio_session import served, text_of

PLAN = {"title": "Plan", "directory": "work", "content": "# Plan\n\nfirst draft"}


async def main(gitmem, root):
    async with served(gitmem, root) as session:
        steps = {}

        async def call(step, name, arguments):
            result = await session.call_tool(name, arguments)
            steps[step] = {"error": result.is_error, "text": text_of(result)}
            return steps[step]

        created = await call("create", "write_note", {**PLAN, "output_format": "json"})
        first = json.loads(created["text"])["checksum"]
        read = await call("read", "read_note", {"identifier": "work/plan", "output_format": "json"})
        steps["read_checksum_is_the_writes"] = json.loads(read["text"])["checksum"] == first
        await call("replace", "write_note", {**PLAN, "content": "second draft", "overwrite": True,
                                             "expected_checksum": first, "output_format": "json"})
        await call("stale", "write_note", {**PLAN, "content": "third draft", "overwrite": True,
                                           "expected_checksum": first, "output_format": "json"})
        await call("exists", "write_note", PLAN)
        await call("absent_text", "edit_note", {"identifier": "work/plan", "operation": "find_replace",
                                                "find_text": "not in the note", "content": "x"})
        await call("lines", "read_note", {"identifier": "work/plan", "start_line": 1, "end_line": 2})
        await call("metadata", "read_note", {"identifier": "work/plan", "include_content": False,
                                             "output_format": "json"})
        steps["first_checksum"] = first
    print(json.dumps(steps))


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2]))
