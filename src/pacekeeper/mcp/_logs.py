"""No MCP session id in a log line (issue 20, finding 7).

The older HTTP+SSE transport names its session in the URL the client POSTs to
(`/mcp?session_id=<id>`), and uvicorn's access log prints that URL. A session id is a
bearer of the session, so the access logger redacts the value before any handler sees it.
"""

from __future__ import annotations

import logging
import re

_SESSION_ID = re.compile(r"(session_id=)[^&\s\"']*", re.IGNORECASE)
REDACTED = "[redacted]"


def redact(text: str) -> str:
    return _SESSION_ID.sub(rf"\g<1>{REDACTED}", text)


class RedactSessionIds(logging.Filter):
    """Rewrites `session_id=<value>` in a record's message and arguments."""

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.msg, str) and "session_id=" in record.msg.lower():
            record.msg = redact(record.msg)
        args = record.args
        if isinstance(args, tuple) and any(
            isinstance(a, str) and "session_id=" in a.lower() for a in args
        ):
            record.args = tuple(redact(a) if isinstance(a, str) else a for a in args)
        return True


def install_access_log_filter(name: str = "uvicorn.access") -> None:
    """Add the filter to the access logger once (a logger's filters survive dictConfig)."""
    logger = logging.getLogger(name)
    if not any(isinstance(f, RedactSessionIds) for f in logger.filters):
        logger.addFilter(RedactSessionIds())


__all__ = ["REDACTED", "RedactSessionIds", "install_access_log_filter", "redact"]
