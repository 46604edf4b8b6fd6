"""An independent client of gitmem's knowledge-graph tools over stdio: the official MCP
Python SDK, playing the examples of the official memory server's README (John_Smith,
Anthropic, works_at) as a client of that server would.

Usage: mcp_graph_client.py GITMEM ROOT

It starts `GITMEM --root ROOT serve --tools graph`, calls each graph tool once in the order
a client builds and then takes apart a graph, and prints on stdout a JSON summary for the Rust
test (tests/stdio_python.rs) to check. The SDK itself validates every structured result
against the tool's output schema.
"""

import asyncio
import json
import sys

from stdio_session import served, text_of

STEPS = [
    ("create_entities", {"entities": [
        {"name": "John_Smith", "entityType": "person", "observations": ["Speaks fluent Spanish"]},
        {"name": "Anthropic", "entityType": "organization", "observations": []},
    ]}),
    ("create_relations", {"relations": [
        {"from": "John_Smith", "to": "Anthropic", "relationType": "works_at"},
    ]}),
    ("add_observations", {"observations": [
        {"entityName": "John_Smith",
         "contents": ["Graduated in 2019", "Prefers morning meetings"]},
    ]}),
    ("search_nodes", {"query": "spanish"}),
    ("open_nodes", {"names": ["Anthropic"]}),
    ("read_graph", {}),
    ("delete_observations", {"deletions": [
        {"entityName": "John_Smith", "observations": ["Prefers morning meetings"]},
    ]}),
    ("delete_relations", {"relations": [
        {"from": "John_Smith", "to": "Anthropic", "relationType": "works_at"},
    ]}),
    ("delete_entities", {"entityNames": ["Anthropic"]}),
    ("read_graph", {}),
]


async def play(gitmem, root, calls):
    """Runs `calls` against `serve --tools graph` on ROOT: the tools listed, and each call's
    summary."""
    # `served` passes this process's environment (the SDK passes only a few variables by
    # default), so the test's HF_HUB_OFFLINE keeps the server from fetching a model.
    async with served(gitmem, root, "--tools", "graph") as session:
        tools = await session.list_tools()
        steps = []
        for name, arguments in calls:
            result = await session.call_tool(name, arguments)
            steps.append({
                "tool": name,
                "error": result.is_error,
                "structured": result.structured_content,
                "text": text_of(result),
            })
        return tools.tools, steps


async def main(gitmem, root):
    tools, steps = await play(gitmem, root, STEPS)
    print(json.dumps({"tools": sorted(tool.name for tool in tools), "steps": steps}))


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2]))
