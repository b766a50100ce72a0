"""One redaction for every log line (issue 20, #14; ERR-3: no log line carries a token,
key or password).

uvicorn's access log prints each request's path with its query string, so provider
callbacks (`code`, `state`), OAuth redirects and SSE session URLs (`session_id`) would
land in the log verbatim, and httpx logs the URLs the service calls. `install()` wraps
the LogRecord factory once per process: every record of every logger (uvicorn.access,
uvicorn.error, pacekeeper.*, httpx, ...) is redacted when it is created, before any
handler or formatter sees it. A filter on named loggers would miss child loggers
(`pacekeeper.connections`) and handlers that tests or operators attach elsewhere.

Arguments' control characters (line breaks above all) are written escaped: user text
cannot forge a line of its own.

Masked: the values of query/form parameters with credential-like names, `Bearer`
credentials, JWTs and Pacekeeper API keys anywhere in a message, and in the traceback of a
logged exception (the text format writes it, the exception's message included). The structure of
`record.args` is kept (uvicorn's access formatter unpacks it by position).
"""

from __future__ import annotations

import logging
import re
from typing import Any
from urllib.parse import unquote

MASK = "[redacted]"
# Every query/form parameter the service knows to carry a secret, by its exact name
# (compared case-insensitively): OAuth 2.0 and PKCE, OAuth 1.0a, SSE sessions, provider
# webhooks (Strava's `hub.verify_token`, Garmin's `user_access_token`, our push `secret`).
SENSITIVE_PARAMETERS = (
    "code", "state", "session_id", "access_token", "refresh_token", "token",
    "client_secret", "code_verifier", "oauth_token", "oauth_verifier", "api_key",
    "password", "csrf_token", "id_token", "assertion", "client_assertion", "secret",
    "hub.verify_token", "verify_token", "user_access_token", "login_csrf",
)  # fmt: skip
_SENSITIVE = frozenset(SENSITIVE_PARAMETERS)
# A parameter is a whole name (letters, digits, `.`, `_`, `-`, `%`, brackets) after any
# character that cannot be part of one, then `=`. The whole name is compared, so
# `hub.verify_token` and `user_access_token` are caught while `token` is not matched
# inside another name by accident of what precedes it (issue 28).
_PARAM = re.compile(r"(?<![\w.%\-\[\]])([\w.%\-\[\]]+)=([^&;\s\"'#]+)")


def _param(match: re.Match[str]) -> str:
    name = match.group(1)
    # Percent-encoded as a client may send it (`hub%2Everify_token`): compared decoded.
    plain = unquote(name).lower() if "%" in name else name.lower()
    return f"{name}={MASK}" if plain in _SENSITIVE else match.group(0)


SENSITIVE_HEADERS = (
    "authorization", "cookie", "set-cookie", "x-api-key", "x-csrf-token", "mcp-session-id",
    "x-sandbox-admin",
)  # fmt: skip
_PATTERNS = (
    # A header's whole value: `Cookie: a=b; c=d`, or httpcore's `(b'set-cookie', b'...')`.
    re.compile(
        r"(?i)((?:^|[\s'\"(,])(?:" + "|".join(SENSITIVE_HEADERS)
        + r")(?:['\"]?\s*,\s*b?['\"]|['\"]?\s*:\s*(?:b?['\"])?))[^'\"\r\n]+"
    ),
    re.compile(r"(?i)(\bbearer\s+)[A-Za-z0-9\-._~+/]+=*"),
    re.compile(r"()\beyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*"),  # JWT
    re.compile(r"()\bpk_live_[0-9a-f]{16}_[A-Za-z0-9_-]+"),  # Pacekeeper API key
)


def redact(text: str) -> str:
    """`text` with every credential-looking value replaced by a mask."""
    text = _PARAM.sub(_param, text)
    for pattern in _PATTERNS:
        text = pattern.sub(lambda m: m.group(1) + MASK, text)
    return text


# Control characters in an argument (user text arrives there) are written escaped, so
# a value with a line break cannot forge a log line of its own (ASVS 16.4.1).
_CONTROLS = {c: f"\\x{c:02x}" for c in (*range(0x20), 0x7F) if c != 0x09}
_CONTROLS |= {0x0A: "\\n", 0x0D: "\\r"}


def _clean(value: Any) -> Any:
    if value is None or isinstance(value, (int, float)):
        return value  # numbers stay numbers (uvicorn formats the status with %d)
    text = value if isinstance(value, str) else str(value)  # e.g. httpx.URL
    masked = redact(text).translate(_CONTROLS)
    return value if masked == text else masked


_TRACEBACKS = logging.Formatter()


def redact_record(record: logging.LogRecord) -> None:
    if isinstance(record.msg, str):
        record.msg = redact(record.msg)
    if record.exc_info and record.exc_info[0] is not None and not record.exc_text:
        # Text formatters write the traceback, the exception's message included, from
        # `exc_text` when set: render it once here, masked (JSON lines keep the type only).
        record.exc_text = redact(_TRACEBACKS.formatException(record.exc_info))
    if record.stack_info:
        record.stack_info = redact(record.stack_info)
    args = record.args
    if isinstance(args, tuple):
        record.args = tuple(_clean(a) for a in args)
    elif isinstance(args, dict):
        record.args = {k: _clean(v) for k, v in args.items()}


class RedactingFilter(logging.Filter):
    """The same redaction as a filter, for handlers configured outside this process's
    record factory (e.g. a dictConfig that builds records elsewhere)."""

    def filter(self, record: logging.LogRecord) -> bool:
        redact_record(record)
        return True


_installed = False


def install() -> None:
    """Redact every log record of this process from now on (idempotent)."""
    global _installed
    if _installed:
        return
    _installed = True
    previous = logging.getLogRecordFactory()

    def factory(*args: Any, **kwargs: Any) -> logging.LogRecord:
        record = previous(*args, **kwargs)
        redact_record(record)
        return record

    logging.setLogRecordFactory(factory)


__all__ = ["MASK", "SENSITIVE_PARAMETERS", "RedactingFilter", "install", "redact"]
