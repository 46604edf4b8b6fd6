"""The session every stdio client of tests/clients/ opens: `GITMEM --root ROOT serve ARGS…`,
initialised, through the official MCP Python SDK."""

import contextlib
import os

from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client


@contextlib.asynccontextmanager
async def served(gitmem, root, *args):
    server = StdioServerParameters(
        command=gitmem, args=["--root", root, "serve", *args], env=dict(os.environ)
    )
    async with stdio_client(server) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            yield session


def text_of(result):
    """The text blocks of a tool result, joined."""
    return "".join(getattr(block, "text", "") for block in result.content)
