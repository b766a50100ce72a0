"""The request id of the request being served, for log lines (a context variable: each
request runs in its own task, so concurrent requests never see each other's)."""

from __future__ import annotations

import os
import re
from contextvars import ContextVar

request_id: ContextVar[str | None] = ContextVar("pacekeeper_request_id", default=None)
# A caller's (or proxy's) X-Request-ID is kept when it is short and plain; anything else
# is replaced (it lands in every log line of the request).
_ACCEPTABLE = re.compile(r"[A-Za-z0-9._:-]{8,64}")


def choose_request_id(given: bytes | None) -> str:
    if given is not None:
        text = given.decode("latin-1")
        if _ACCEPTABLE.fullmatch(text):
            return text
    return os.urandom(16).hex()  # 32 hex digits, as uuid4().hex without a UUID object


__all__ = ["choose_request_id", "request_id"]
