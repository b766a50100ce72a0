"""A provider's samples decoded and put on the 1 Hz grid off the event loop (issue 30).

A 3-hour ride's streams are ~0.5 MB of JSON: decoding them and resampling them onto the
grid (``fitness.streams.from_samples``, numpy) is 10-30 ms of CPU that holds the GIL, so a
thread would stall the loop just the same. The client hands the response's bytes to
``run_cpu`` with one top-level function of its provider (``<provider>._map``: decode +
map, picklable), and gets the ``StreamSet`` back. The service passes its CPU pool's
waiting runner (``CpuPool.run_when_free``: a sync is background work, it waits for a
place rather than failing); a client built without one (tests, the sandbox's own use)
runs the function here, as before.

The providers never import the pool or the fitness service: ``run_cpu`` comes in through
the clients' construction (``providers.client_for``, ``ConnectionService``).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, Protocol, TypeVar

import orjson

from ._errors import ProviderResponseError

T = TypeVar("T")

# Bodies below this are decoded and mapped where they arrive: measured on this machine
# (docs/performance.md, issue 30), a call through the pool costs the serving process
# 0.3-0.4 ms of CPU (submitting, the result's unpickling, waking the loop), as much as
# decoding and mapping ~10 KB of streams (2-3 minutes of samples); 16 KiB (~4 minutes,
# ~0.5 ms) keeps the inline work within about one pool round trip's cost.
INLINE_BYTES = 16 * 1024


class RunCpu(Protocol):
    """Runs ``fn(*args)`` off the event loop (a top-level function; arguments and result
    pickle) and gives its result; ``CpuPool.run_when_free`` is one."""

    def __call__(self, fn: Callable[..., T], /, *args: Any) -> Awaitable[T]: ...


async def run_here(fn: Callable[..., T], /, *args: Any) -> T:
    """The runner of a client built without a pool: the function in this thread."""
    return fn(*args)


async def off_loop(run_cpu: RunCpu, fn: Callable[[bytes], T], body: bytes) -> T:
    """``fn(body)`` through ``run_cpu``, unless the body is small enough that the trip to
    the pool would cost more than the work (``INLINE_BYTES``)."""
    if len(body) < INLINE_BYTES:
        return fn(body)
    return await run_cpu(fn, body)


def json_body(provider: str, body: bytes) -> Any:
    """A response body decoded (orjson: 3-4x ``json``'s speed on streams)."""
    try:
        return orjson.loads(body)
    except orjson.JSONDecodeError as exc:
        raise ProviderResponseError(provider, "response is not JSON") from exc


def shaped(provider: str, mapper: Callable[[], T]) -> T:
    """``mapper()``; a body the mapper cannot read is the provider's fault, one clear error."""
    try:
        return mapper()
    except (KeyError, TypeError, ValueError) as exc:
        raise ProviderResponseError(provider, "unexpected response shape") from exc


__all__ = ["INLINE_BYTES", "RunCpu", "json_body", "off_loop", "run_here", "shaped"]
