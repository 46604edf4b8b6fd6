"""An independent client of corporatepiyush/mcp-memory's graph tools over stdio, as gitmem
serves them: the official MCP Python SDK builds a small graph with the official tools, then
walks, counts, exports, upserts and merges it.

Usage: mcp_graph_query_client.py GITMEM ROOT

It starts `GITMEM --root ROOT serve --tools graph`, calls the steps below in order and prints
on stdout a JSON summary for the Rust test (tests/stdio_python.rs) to check. The SDK itself
validates every structured result against the tool's output schema.
"""

import asyncio
import json
import sys

# The official server's client, beside this file: the same session, other steps.
from mcp_graph_client import play

STEPS = [
    ("create_entities", {"entities": [
        {"name": "Alice", "entityType": "person", "observations": ["Likes tea"]},
        {"name": "Bob", "entityType": "person", "observations": ["Plays chess"]},
        {"name": "Robert", "entityType": "person", "observations": []},
        {"name": "Acme", "entityType": "organization", "observations": []},
    ]}),
    ("create_relations", {"relations": [
        {"from": "Alice", "to": "Bob", "relationType": "knows"},
        {"from": "Bob", "to": "Acme", "relationType": "works_at"},
    ]}),
    ("find_path", {"from": "Alice", "to": "Acme"}),
    ("find_path", {"from": "Alice", "to": "Robert"}),
    ("find_all_paths", {"from": "Alice", "to": "Acme", "maxDepth": 3}),
    ("get_neighbors", {"name": "Bob", "direction": "out"}),
    ("extract_subgraph", {"names": ["Acme"], "depth": 2}),
    ("describe_entity", {"name": "Bob"}),
    ("graph_stats", {}),
    ("list_entity_types", {}),
    ("list_relation_types", {}),
    ("search_relations", {"relationType": "works_at"}),
    ("read_graph", {"entityType": "person", "limit": 2}),
    ("search_nodes", {"query": "a", "offset": 1, "limit": 1}),
    ("export_graph", {"format": "mermaid"}),
    ("export_graph", {"format": "dot"}),
    ("upsert_entities", {"entities": [
        {"name": "Alice", "entityType": "person", "observations": ["Runs"]},
    ]}),
    ("merge_entities", {"source": "Bob", "target": "Robert"}),
    ("batch_get_entities", {"names": ["Robert", "Bob"]}),
    ("search_relations", {"to": "Robert"}),
]


async def main(gitmem, root):
    tools, steps = await play(gitmem, root, STEPS)
    print(json.dumps({
        "tools": {
            tool.name: {"readOnly": tool.annotations.read_only_hint if tool.annotations else None}
            for tool in tools
        },
        "steps": steps,
    }))


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2]))
