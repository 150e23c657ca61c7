"""Pydantic AI (PyPI `pydantic-ai-slim`): one `add` call.

Entry point: `pydantic_ai.tool_manager.ToolManager`, `validate_tool_call(call)` then
`execute_tool_call(validated)`, the two calls the agent graph makes for each function
tool call of a model response (`_tool_execution.py`); then
`ToolReturnPart(..).model_response_str()`, the text the model is sent back. The
manager is prepared once for the run step (`for_run_step`), as the agent does before a
step's calls, over a `FunctionToolset([add])`. Validation is pydantic's, against the
model built from the function's signature, straight from the JSON string; execution
passes through the capability hooks (none configured here, as on a bare agent).

A plain `def` tool runs in a worker thread (`run_in_executor`); an `async def` is
awaited in place. `def` (the default) or `async` as the third argument picks which.

Usage: python peer_pydantic_ai.py [ITERATIONS] [BATCHES] [def|async]
"""
import asyncio
import sys
from importlib.metadata import version

from pydantic_ai import RunContext
from pydantic_ai.messages import ToolCallPart, ToolReturnPart
from pydantic_ai.models.test import TestModel
from pydantic_ai.tool_manager import ToolManager
from pydantic_ai.toolsets import FunctionToolset
from pydantic_ai.usage import RunUsage

from timing import ARGS, measure_async

VARIANT = sys.argv[3] if len(sys.argv) > 3 else "def"

if VARIANT == "async":

    async def add(a: int, b: int) -> int:
        """Add two integers."""
        return a + b
else:

    def add(a: int, b: int) -> int:
        """Add two integers."""
        return a + b


async def prepare() -> ToolManager:
    # TestModel stands in for a model: nothing here asks it anything.
    context = RunContext(deps=None, model=TestModel(), usage=RunUsage())
    return await ToolManager(toolset=FunctionToolset([add])).for_run_step(context)


async def once() -> str:
    global manager
    if manager is None:
        manager = await prepare()
    call = ToolCallPart(tool_name="add", args=ARGS, tool_call_id="call_1")
    validated = await manager.validate_tool_call(call)
    result = await manager.execute_tool_call(validated)
    part = ToolReturnPart(tool_name="add", content=result, tool_call_id=call.tool_call_id)
    return part.model_response_str()


manager = None

if __name__ == "__main__":
    name = "pydantic-ai (async def)" if VARIANT == "async" else "pydantic-ai (def)"
    measure_async(name, f"pydantic-ai-slim {version('pydantic-ai-slim')}", once)
