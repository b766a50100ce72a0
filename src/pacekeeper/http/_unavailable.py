"""A backing service (PostgreSQL, Redis) that cannot be reached answers 503 with
Retry-After, not a 500 with a traceback in the log: the caller sees an error it can retry,
and the log says which service in one line (found by bench/faults: a Redis or PostgreSQL
restart under load turned every request of those seconds into a 500)."""

from __future__ import annotations

import logging

from starlette.requests import Request
from starlette.responses import Response

from pacekeeper.backing import UNAVAILABLE, is_unavailable, is_unstorable_text, service_of
from pacekeeper.http._common import error_response

log = logging.getLogger("pacekeeper.http")

RETRY_AFTER_SECONDS = 2


UNSTORABLE_TEXT = "text must not contain NUL characters"


async def unavailable_handler(_request: Request, exc: Exception) -> Response:
    if is_unstorable_text(exc):  # PostgreSQL refuses a NUL in text: the caller's input
        return error_response(400, "validation_error", UNSTORABLE_TEXT)
    if not is_unavailable(exc):
        raise exc  # a real error: the 500 handler answers and the log keeps the traceback
    log.warning("%s unavailable: %s", service_of(exc), type(exc).__name__)
    return error_response(503, "service_unavailable",
                          "a backing service is unavailable; retry shortly",
                          {"Retry-After": str(RETRY_AFTER_SECONDS)})


__all__ = ["RETRY_AFTER_SECONDS", "UNAVAILABLE", "UNSTORABLE_TEXT",
           "is_unavailable", "unavailable_handler"]
