"""OpenAI Agents SDK (PyPI `openai-agents`): one `add` call.

Entry point: `agents.tool.invoke_function_tool(function_tool=.., context=..,
arguments=..)`, then `ItemHelpers.tool_call_output_item(..)["output"]`. The runner
(`run_internal/tool_execution.py`) builds a `ToolContext` per call
(`ToolContext.from_agent_context`) and awaits `_invoke_function_tool_with_metadata`,
which `invoke_function_tool` wraps: it applies the tool's timeout if it has one and
awaits the `FunctionTool`'s `on_invoke_tool(ctx, json_string)`, which validates the
string against the pydantic model `@function_tool` built from the signature, calls the
function and checks the output. `tool_call_output_item` makes the item sent back to
the model; its `output` is the string the model reads. Guardrails and run hooks are
left out (none are configured on a bare agent).

A plain `def` tool is run on a worker thread (`asyncio.to_thread`); an `async def` is
awaited in place. `def` (the default) or `async` as the third argument picks which.

Usage: python peer_openai_agents.py [ITERATIONS] [BATCHES] [def|async]
"""
import sys
from importlib.metadata import version

from agents import FunctionTool, ItemHelpers, RunContextWrapper, function_tool
from agents.tool import invoke_function_tool
from agents.tool_context import ToolContext
from openai.types.responses import ResponseFunctionToolCall

from timing import ARGS, measure_async

VARIANT = sys.argv[3] if len(sys.argv) > 3 else "def"

if VARIANT == "async":

    @function_tool
    async def add(a: int, b: int) -> int:
        """Add two integers."""
        return a + b
else:

    @function_tool
    def add(a: int, b: int) -> int:
        """Add two integers."""
        return a + b


assert isinstance(add, FunctionTool)
RUN_CONTEXT = RunContextWrapper(context=None)


async def once() -> str:
    call = ResponseFunctionToolCall(
        type="function_call", call_id="call_1", name="add", arguments=ARGS
    )
    context = ToolContext.from_agent_context(RUN_CONTEXT, call.call_id, tool_call=call)
    output = await invoke_function_tool(function_tool=add, context=context, arguments=call.arguments)
    return ItemHelpers.tool_call_output_item(call, output)["output"]


if __name__ == "__main__":
    name = "openai-agents (async def)" if VARIANT == "async" else "openai-agents (def)"
    measure_async(name, f"openai-agents {version('openai-agents')}", once)
