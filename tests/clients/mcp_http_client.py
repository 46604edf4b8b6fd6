"""An independent MCP client for gitmem's HTTP transport: the official MCP Python SDK.

Usage: mcp_http_client.py URL token TOKEN
       mcp_http_client.py URL oauth OWNER_SECRET

With `token` it sends a bearer token; with `oauth` it goes through the SDK's OAuth flow
(discovery, dynamic registration, PKCE), approving on gitmem's page with the owner's
password or one-time code. Either way it writes a note, searches for it and prints a JSON
summary on stdout for the Rust test (tests/http_python.rs) to check.
"""

import asyncio
import json
import sys
import urllib.parse

import httpx2
from mcp import ClientSession
from mcp.client.auth import OAuthClientProvider
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.auth import AuthorizationCodeResult, OAuthClientMetadata

CALLBACK = "http://127.0.0.1:9/callback"
# Seconds an HTTP request may take: httpx's default of 5 is too short on a loaded machine.
TIMEOUT = 120


class MemoryStorage:
    def __init__(self):
        self.tokens = None
        self.client = None

    async def get_tokens(self):
        return self.tokens

    async def set_tokens(self, tokens):
        self.tokens = tokens

    async def get_client_info(self):
        return self.client

    async def set_client_info(self, client_info):
        self.client = client_info


def oauth_provider(url, secret):
    """The SDK's provider, with a 'browser' that approves on gitmem's page."""
    redirect = {}

    async def open_browser(authorization_url):
        async with httpx2.AsyncClient(follow_redirects=False, timeout=TIMEOUT) as http:
            page = await http.get(authorization_url)
            if page.status_code != 200 or "Allow" not in page.text:
                raise RuntimeError(f"no approval page: {page.status_code} {page.text[:200]}")
            query = urllib.parse.parse_qs(urllib.parse.urlsplit(authorization_url).query)
            form = {key: values[0] for key, values in query.items()}
            form.update({"secret": secret, "decision": "approve"})
            endpoint = authorization_url.split("?", 1)[0]
            answer = await http.post(endpoint, data=form)
            if answer.status_code != 302:
                raise RuntimeError(f"approval failed: {answer.status_code} {answer.text[:200]}")
            redirect["location"] = answer.headers["location"]

    async def callback():
        params = urllib.parse.parse_qs(urllib.parse.urlsplit(redirect["location"]).query)
        return AuthorizationCodeResult(
            code=params["code"][0],
            state=params.get("state", [None])[0],
            iss=params.get("iss", [None])[0],
        )

    metadata = OAuthClientMetadata(
        redirect_uris=[CALLBACK],
        client_name="MCP Python SDK",
        grant_types=["authorization_code", "refresh_token"],
        response_types=["code"],
        token_endpoint_auth_method="none",
    )
    return OAuthClientProvider(
        server_url=url,
        client_metadata=metadata,
        storage=MemoryStorage(),
        redirect_handler=open_browser,
        callback_handler=callback,
    )


def text_of(result):
    return "".join(getattr(block, "text", "") for block in result.content)


async def main(url, mode, secret):
    if mode == "token":
        http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {secret}"}, timeout=TIMEOUT)
    else:
        http = httpx2.AsyncClient(auth=oauth_provider(url, secret), timeout=TIMEOUT)
    async with http:
        async with streamable_http_client(url, http_client=http) as streams:
            read, write = streams[0], streams[1]
            async with ClientSession(read, write) as session:
                initialized = await session.initialize()
                tools = await session.list_tools()
                written = await session.call_tool(
                    "write_note",
                    {"title": f"From Python {mode}", "directory": "sdk",
                     "content": f"written by the MCP Python SDK with {mode}"},
                )
                found = await session.call_tool(
                    "search_notes", {"query": "written by the MCP Python SDK"}
                )
                # `search` declares an output schema: the SDK checks its structured content.
                connector = await session.call_tool("search", {"query": "MCP Python SDK"})
                print(json.dumps({
                    "connector_error": connector.is_error,
                    "connector": connector.structured_content,
                    "server": initialized.server_info.name if initialized else None,
                    "tools": sorted(tool.name for tool in tools.tools),
                    "write_error": written.is_error,
                    "write": text_of(written),
                    "search": text_of(found),
                }))


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2], sys.argv[3]))
