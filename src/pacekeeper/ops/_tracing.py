"""OpenTelemetry traces over OTLP/HTTP, when configured by the standard variables
(`OTEL_EXPORTER_OTLP_ENDPOINT` or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`, and
`OTEL_SERVICE_NAME`, `OTEL_EXPORTER_OTLP_HEADERS`, ... as the exporter reads them).

The provider is installed globally: the HTTP server span (ops._observe) and mcpcast's
span per tool call both find it, and a tool call's span nests under its request's.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping

from opentelemetry import trace

log = logging.getLogger("pacekeeper.tracing")
ENDPOINT_VARIABLES = ("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_EXPORTER_OTLP_ENDPOINT")
_configured = False


def tracing_wanted(environ: Mapping[str, str]) -> bool:
    if environ.get("OTEL_SDK_DISABLED", "").lower() == "true":
        return False
    return any(environ.get(name) for name in ENDPOINT_VARIABLES)


def configure_tracing(environ: Mapping[str, str] | None = None) -> bool:
    """Install an OTLP-exporting tracer provider once per process; whether tracing is on."""
    global _configured
    environ = os.environ if environ is None else environ
    if _configured:
        return True
    if not tracing_wanted(environ):
        return False
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor

    resource = Resource.create({"service.name": environ.get("OTEL_SERVICE_NAME", "pacekeeper")})
    provider = TracerProvider(resource=resource)
    provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))
    trace.set_tracer_provider(provider)
    _configured = True
    log.info("tracing: exporting spans over OTLP/HTTP")
    return True


def shutdown_tracing() -> None:
    """Flush the spans still buffered (at shutdown)."""
    provider = trace.get_tracer_provider()
    shutdown = getattr(provider, "shutdown", None)
    if _configured and callable(shutdown):
        shutdown()


__all__ = ["configure_tracing", "shutdown_tracing", "tracing_wanted"]
