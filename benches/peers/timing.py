"""Shared timing loop of the Python peer harnesses run by scripts/bench-peers.

Each harness hands in `once`, one tool call from the model's argument string
`{"a":2,"b":3}` to the string the model is shown, and gets back one JSON line: the
median ns per call over the batches, the batches themselves, and the iterations.
Async entry points are timed inside one running event loop (no `asyncio.run` per call).
"""
import asyncio
import json
import sys
import time

ARGS = '{"a":2,"b":3}'


def settings() -> tuple[int, int]:
    """`[ITERATIONS] [BATCHES]` from the command line (20 000 and 5 by default)."""
    argv = sys.argv[1:]
    iterations = int(argv[0]) if argv else 20_000
    batches = int(argv[1]) if len(argv) > 1 else 5
    return iterations, max(batches, 1)


def report(name: str, version: str, per_batch: list[float], iterations: int) -> None:
    per_batch = sorted(per_batch)
    line = {
        "name": name,
        "version": version,
        "ns_per_call": round(per_batch[len(per_batch) // 2], 1),
        "iterations": iterations,
        "batches": [round(ns, 1) for ns in per_batch],
    }
    print(json.dumps(line), flush=True)


def check(first: object) -> None:
    if first != "5":
        sys.exit(f"expected the string '5' from one call, got {first!r}")


def measure(name: str, version: str, once) -> None:
    """Time a synchronous `once()`."""
    iterations, batches = settings()
    check(once())
    for _ in range(max(iterations // 10, 1)):
        once()
    per_batch = []
    for _ in range(batches):
        start = time.perf_counter_ns()
        for _ in range(iterations):
            once()
        per_batch.append((time.perf_counter_ns() - start) / iterations)
    report(name, version, per_batch, iterations)


def measure_async(name: str, version: str, once) -> None:
    """Time an async `once()`, every call awaited inside one event loop."""
    iterations, batches = settings()

    async def batches_ns() -> list[float]:
        check(await once())
        for _ in range(max(iterations // 10, 1)):
            await once()
        per_batch = []
        for _ in range(batches):
            start = time.perf_counter_ns()
            for _ in range(iterations):
                await once()
            per_batch.append((time.perf_counter_ns() - start) / iterations)
        return per_batch

    report(name, version, asyncio.run(batches_ns()), iterations)
