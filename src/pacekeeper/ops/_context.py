"""The request id of the request being served, for log lines (a context variable: each
request runs in its own task, so concurrent requests never see each other's)."""

from __future__ import annotations

import itertools
import os
import re
from contextvars import ContextVar

request_id: ContextVar[str | None] = ContextVar("pacekeeper_request_id", default=None)
# A caller's (or proxy's) X-Request-ID is kept when it is short and plain; anything else
# is replaced (it lands in every log line of the request).
_ACCEPTABLE = re.compile(r"[A-Za-z0-9._:-]{8,64}")



# A made id is this process's random 64-bit prefix (16 hex digits) and a decimal counter:
# unique across processes and restarts without a system call per request. It names a
# request in logs and is no secret (the caller sees it echoed), so it need not be
# unpredictable. Decimal: `str(int)` is the integer formatting every response already
# runs (its Content-Length); a hex field would bring the format-spec machinery's code
# into every request (issue 19, bench/service_auth --footprint).
_prefix = ""
_counter = itertools.count()


def _new_process() -> None:
    global _prefix, _counter
    _prefix = os.urandom(8).hex()
    _counter = itertools.count()


_new_process()
os.register_at_fork(after_in_child=_new_process)  # a forked worker gets its own prefix


def choose_request_id(given: bytes | None) -> str:
    if given is not None:
        text = given.decode("latin-1")
        if _ACCEPTABLE.fullmatch(text):
            return text
    return _prefix + str(next(_counter))


__all__ = ["choose_request_id", "request_id"]
