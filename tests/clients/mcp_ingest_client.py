"""Bulk ingest end to end: memory records sent to gitmem's `POST /ingest` as JSON Lines, then
found again by the official MCP Python SDK over `/mcp` with the same bearer token.

Usage: mcp_ingest_client.py BASE_URL TOKEN

Prints a JSON summary on stdout for the Rust test (tests/http_python.rs) to check.
"""

import asyncio
import json
import sys

import httpx2
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

# Seconds an HTTP request may take: httpx's default of 5 is too short on a loaded machine.
TIMEOUT = 120

RECORDS = [
    {"id": "py-ingest-1", "content": "The kettle descaler lives under the sink", "tags": ["home"]},
    {"id": "py-ingest-2", "content": "Quarterly taxes are due on the fifteenth", "type": "fact"},
    {"content": "", "tags": ["empty"]},
]


def structured(result):
    if result.structured_content is not None:
        return result.structured_content
    return json.loads("".join(getattr(block, "text", "") for block in result.content))


async def main(base, token):
    headers = {"Authorization": f"Bearer {token}"}
    async with httpx2.AsyncClient(headers=headers, timeout=TIMEOUT) as http:
        body = "\n".join(json.dumps(record) for record in RECORDS) + "\n"
        ingested = await http.post(
            f"{base}/ingest", content=body, headers={"Content-Type": "application/x-ndjson"}
        )
        async with streamable_http_client(f"{base}/mcp", http_client=http) as streams:
            read, write = streams[0], streams[1]
            async with ClientSession(read, write) as session:
                await session.initialize()
                found = await session.call_tool("memory_search", {"query": "kettle descaler"})
                got = await session.call_tool("memory_get", {"id": "py-ingest-2"})
                print(json.dumps({
                    "ingest_status": ingested.status_code,
                    "ingest": ingested.json(),
                    "search_error": found.is_error,
                    "search": structured(found),
                    "get_error": got.is_error,
                    "get": structured(got),
                }))


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2]))
