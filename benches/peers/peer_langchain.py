"""LangChain (PyPI `langchain-core`): one `add` call.

Entry point: `langchain_core.output_parsers.openai_tools.parse_tool_call(raw)`, which
turns an OpenAI-format tool call (arguments as a JSON string) into LangChain's
`ToolCall` dict as a chat model's output does, then `tool.invoke(tool_call)`: a
`BaseTool` invoked with a `ToolCall` validates the arguments against the pydantic model
`@tool` built from the signature, runs the function inside its callback manager and
returns a `ToolMessage`, whose `content` is the string the model reads. This is what
LangGraph's `ToolNode` and LangChain's agents do with each call (they call
`invoke`/`ainvoke` with the tool call dict). A sync `def` tool runs in place under
`invoke`.

Usage: python peer_langchain.py [ITERATIONS] [BATCHES]
"""
from importlib.metadata import version

from langchain_core.output_parsers.openai_tools import parse_tool_call
from langchain_core.tools import tool

from timing import ARGS, measure


@tool
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


def once() -> str:
    raw = {"id": "call_1", "type": "function", "function": {"name": "add", "arguments": ARGS}}
    call = parse_tool_call(raw, return_id=True)
    call["type"] = "tool_call"
    return add.invoke(call).content


if __name__ == "__main__":
    measure("langchain-core", f"langchain-core {version('langchain-core')}", once)
