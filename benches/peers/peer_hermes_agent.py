"""Nous Research's Python Hermes Agent (PyPI `hermes-agent`): one `add` call.

Entry point: the two steps its agent loop takes for each tool call a model makes
(`agent/tool_executor.py`, `execute_tool_calls_sequential`):

1. `agent.tool_executor._parse_tool_arguments(raw)`: `json.loads` of the model's
   argument string, refused unless it is a JSON object;
2. `model_tools.handle_function_call(name, args, task_id, tool_call_id=..)`: the
   dispatcher the loop calls (string-to-type coercion against the schema, the tool
   search bridge, tool request middleware, the pre-tool-call plugin hook, the ACP edit
   approval guard, the read-loop tracker, execution middleware around
   `tools.registry.registry.dispatch`, the post-tool-call hook, result transforms).

The loop fires the pre-call hook and the request middleware itself and then passes
`skip_*=True`; here `handle_function_call` runs them, so each still runs once.
Tools register with `tools.registry.registry.register(name, toolset, schema,
handler)`; a handler takes the argument dict and returns the string the model reads.
There is no JSON Schema validation of arguments.

Usage: python peer_hermes_agent.py [ITERATIONS] [BATCHES] [--startup]
`--startup` times nothing itself: it imports the agent, registers `add`, dispatches
once and exits, for the import-to-first-dispatch figure (timed from outside).
"""
import json
import os
import sys
import tempfile
from importlib.metadata import version

# The agent keeps its state under HERMES_HOME (~/.hermes by default): use a scratch one.
os.environ.setdefault("HERMES_HOME", os.path.join(tempfile.gettempdir(), "bench-peers-hermes-home"))

import run_agent  # noqa: E402,F401  (the agent package: AIAgent, with every built-in tool)
import model_tools  # noqa: E402
from agent.tool_executor import _parse_tool_arguments  # noqa: E402
from tools.registry import registry  # noqa: E402

ADD_SCHEMA = {
    "name": "add",
    "description": "Add two integers.",
    "parameters": {
        "type": "object",
        "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
        "required": ["a", "b"],
    },
}


def add(args: dict, **_context) -> str:
    return json.dumps(args["a"] + args["b"])


registry.register(name="add", toolset="bench", schema=ADD_SCHEMA, handler=add)


def once(raw: str = '{"a":2,"b":3}') -> str:
    args, refusal = _parse_tool_arguments(raw)
    if refusal is not None:
        return refusal
    return model_tools.handle_function_call(
        "add", args, "bench-task", tool_call_id="call_1", session_id="bench-session"
    )


if __name__ == "__main__":
    if "--startup" in sys.argv:
        result = once()
        sys.exit(0 if result == "5" else f"unexpected result {result!r}")
    from timing import measure

    measure("hermes-agent (Python)", f"hermes-agent {version('hermes-agent')}", once)
