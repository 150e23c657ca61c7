"""An MCP client on the official Python SDK (PyPI `mcp`), for hermes' server tests.

Reads one JSON document on stdin:
  {"transport": "stdio", "command": "...", "args": [...], "env": {...}}
  or {"transport": "http", "url": "http://127.0.0.1:PORT/mcp"},
  plus "ops": [{"op": "list"} | {"op": "call", "name": "...", "arguments": {...}}].
Connects, initializes, runs the ops in order and prints one JSON document on stdout:
  {"server": {"name", "version"}, "capabilities": {...},
   "results": [{"tools": [...]} | CallToolResult | {"exception": type, "message": text}]}
Results are the SDK's own models dumped by alias (camelCase, as on the wire), so the
test sees what the SDK parsed, not what the server sent.
"""

import json
import sys

import anyio
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client


def dump(model):
    return model.model_dump(by_alias=True, mode="json", exclude_none=True)


async def run_ops(session, ops):
    init = await session.initialize()
    results = []
    for op in ops:
        try:
            if op["op"] == "list":
                listed = await session.list_tools()
                results.append({"tools": [dump(tool) for tool in listed.tools]})
            elif op["op"] == "call":
                result = await session.call_tool(op["name"], op.get("arguments"))
                results.append(dump(result))
            else:
                raise ValueError(f"unknown op {op['op']!r}")
        except Exception as error:  # noqa: BLE001 - reported to the test as data
            results.append({"exception": type(error).__name__, "message": str(error)})
    return {
        "server": dump(init.server_info),
        "capabilities": dump(init.capabilities),
        "results": results,
    }


async def main():
    spec = json.load(sys.stdin)
    if spec["transport"] == "stdio":
        params = StdioServerParameters(
            command=spec["command"], args=spec.get("args", []), env=spec.get("env")
        )
        async with stdio_client(params) as (read, write):
            async with ClientSession(read, write) as session:
                report = await run_ops(session, spec["ops"])
    elif spec["transport"] == "http":
        async with streamable_http_client(spec["url"]) as (read, write):
            async with ClientSession(read, write) as session:
                report = await run_ops(session, spec["ops"])
    else:
        raise ValueError(f"unknown transport {spec['transport']!r}")
    json.dump(report, sys.stdout)
    sys.stdout.write("\n")


if __name__ == "__main__":
    anyio.run(main)
