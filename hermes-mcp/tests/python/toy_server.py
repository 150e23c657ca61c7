"""A small MCP server written with the official Python SDK, for hermes-mcp's client tests.

Tools: add (typed arguments), fail (always an error result), grow (registers `shout`
and sends notifications/tools/list_changed), crash (the process exits at once).

    python toy_server.py                 # stdio
    python toy_server.py http PORT       # streamable HTTP on 127.0.0.1:PORT/mcp; the
                                         # `whoami` tool reports the X-Hermes-Test header

With TOY_BLOCK_FILE set to a path that exists, it refuses to start (exit 2).
"""

import os
import sys

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError

server = MCPServer("toy")


@server.tool()
def add(a: int, b: int) -> int:
    """Add two integers and return the sum."""
    return a + b


@server.tool()
def fail() -> str:
    """Always fails, with a message for the caller."""
    raise ToolError("this tool always fails")


def shout(text: str) -> str:
    """Return the text in capitals."""
    return text.upper()


@server.tool()
async def grow(ctx: Context) -> str:
    """Register the `shout` tool and tell the client the tool list changed."""
    server.add_tool(shout)
    await ctx.session.send_tool_list_changed()
    return "grown"


@server.tool()
def crash() -> str:
    """End the server process at once, as a crash would."""
    sys.stdout.flush()
    os._exit(3)


@server.tool()
def whoami(ctx: Context) -> str:
    """Report the X-Hermes-Test header of the HTTP request (empty over stdio)."""
    request = getattr(ctx.request_context, "request", None)
    headers = getattr(request, "headers", None) or {}
    return headers.get("x-hermes-test", "")


if __name__ == "__main__":
    block = os.environ.get("TOY_BLOCK_FILE")
    if block and os.path.exists(block):
        print(f"toy server: {block} exists, refusing to start", file=sys.stderr)
        sys.exit(2)
    if len(sys.argv) == 3 and sys.argv[1] == "http":
        server.run("streamable-http", host="127.0.0.1", port=int(sys.argv[2]))
    else:
        print("toy server: ready on stdio", file=sys.stderr)
        server.run()
