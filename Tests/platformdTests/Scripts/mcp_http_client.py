#!/usr/bin/env python3
"""Drives `platformd serve --http`'s POST /mcp with the official MCP Python SDK's Streamable HTTP
client, as an assistant hosted elsewhere would.

Usage: mcp_http_client.py URL TOKEN

Initializes a session with TOKEN as the bearer, lists the tools, calls onboarding_status, then
onboarding_answer with an empty values object (which the server refuses or accepts by its own
rules), and prints one JSON object: the negotiated protocol version, the tool names, the
status call's structured content and the answer call's isError. Exits 0 when the SDK completed
every call, 1 when a call failed (the error printed), 2 when the mcp package is missing.
"""
import asyncio
import json
import sys

try:
    from mcp import ClientSession
    import mcp.client.streamable_http as streamable
except ImportError:
    print("the mcp package is not installed (pip install mcp)")
    sys.exit(2)


def connect(url, token):
    headers = {"Authorization": f"Bearer {token}"}
    # The SDK's 2.x client takes an HTTP client carrying the headers; 1.x takes them directly.
    if hasattr(streamable, "streamable_http_client") and hasattr(streamable, "create_mcp_http_client"):
        return streamable.streamable_http_client(url, http_client=streamable.create_mcp_http_client(headers=headers))
    return streamable.streamablehttp_client(url, headers=headers)


async def walk(url, token):
    async with connect(url, token) as streams:
        read, write = streams[0], streams[1]
        async with ClientSession(read, write) as session:
            initialized = await session.initialize()
            tools = await session.list_tools()
            status = await session.call_tool("onboarding_status", {})
            answer = await session.call_tool("onboarding_answer", {"values": {}})
            return {
                "protocolVersion": str(field(initialized, "protocolVersion", "protocol_version")),
                "serverName": field(initialized, "serverInfo", "server_info").name,
                "tools": sorted(tool.name for tool in tools.tools),
                "status": field(status, "structuredContent", "structured_content"),
                "statusIsError": bool(field(status, "isError", "is_error")),
                "answerIsError": bool(field(answer, "isError", "is_error")),
            }


def field(value, *names):
    """A result's field by its name in the SDK's 1.x (camelCase) or 2.x (snake_case) types."""
    for name in names:
        if hasattr(value, name):
            return getattr(value, name)
    raise AttributeError(f"{type(value).__name__} has none of {names}")


def main():
    if len(sys.argv) != 3:
        print(__doc__)
        sys.exit(64)
    try:
        result = asyncio.run(walk(sys.argv[1], sys.argv[2]))
    except BaseException as error:  # the SDK raises exception groups from its task groups
        print(f"failed: {error!r}")
        sys.exit(1)
    print(json.dumps(result, sort_keys=True))


if __name__ == "__main__":
    main()
