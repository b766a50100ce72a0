"""The tracer of a part of the service, found once tracing is configured (a leaf module:
the HTTP layer and the database layer both use it). `ops.configure_tracing` installs the
global provider at start-up; until then (and without tracing) `tracer()` is None and a
caller creates no span at all."""

from __future__ import annotations

import time

from opentelemetry import trace


class LazyTracer:
    def __init__(self, name: str, provider: trace.TracerProvider | None = None) -> None:
        self.name = name
        self._provider = provider
        self._tracer: trace.Tracer | None = None
        self._next_look = 0.0

    def tracer(self) -> trace.Tracer | None:
        if self._tracer is not None:
            return self._tracer
        # Look for the global provider at most every half second (the lookup reads the
        # environment: microseconds that would show on every request and statement).
        now = time.monotonic()
        if now < self._next_look:
            return None
        self._next_look = now + 0.5
        provider = self._provider or trace.get_tracer_provider()
        if isinstance(provider, trace.ProxyTracerProvider | trace.NoOpTracerProvider):
            return None
        self._tracer = provider.get_tracer(self.name)
        return self._tracer


__all__ = ["LazyTracer"]
