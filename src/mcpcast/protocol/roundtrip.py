"""Multi-round-trip requests (2026-07-28): asking the client for input without a session.

A tool that calls ``ctx.elicit`` or ``ctx.sample`` in the current era is stopped at that
call; the client gets an ``input_required`` result naming what is needed, answers it, and
retries the original request with ``inputResponses`` and the echoed ``requestState``. The
tool then runs again from the top, and each of its ``ctx.elicit``/``ctx.sample`` calls,
numbered in order, gets its answer from the responses gathered so far: write such tools so
that what they do before asking is safe to repeat.

``requestState`` is attacker-controlled, so it is an HMAC-SHA256-signed token binding the
method, a digest of the params, the principal and an expiry, with a nonce that makes every
state single use (a ``ReplayGuard``; the in-memory one covers one process, plug in a shared
one when several processes serve the same clients).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
import time
from typing import Any, Protocol

import orjson

from .._errors import InvalidParams, McpcastError

ROUND_TRIP_METHODS = frozenset({"tools/call", "prompts/get", "resources/read"})
_STRIP = ("_meta", "inputResponses", "requestState")


class InputRequired(McpcastError):
    """Raised inside a handler when the client must answer ``request`` first."""

    def __init__(self, key: str, request: dict[str, Any]) -> None:
        super().__init__(f"input required: {request['method']}")
        self.key = key
        self.request = request


class ReplayGuard(Protocol):
    def use(self, nonce: str, expires_at: float) -> bool:
        """Record ``nonce`` as used; False if it already was (atomically)."""


class MemoryReplayGuard:
    def __init__(self) -> None:
        self._used: dict[str, float] = {}

    def use(self, nonce: str, expires_at: float) -> bool:
        now = time.time()
        if len(self._used) > 10_000:
            self._used = {n: t for n, t in self._used.items() if t > now}
        if nonce in self._used:
            return False
        self._used[nonce] = expires_at
        return True


def params_digest(params: dict[str, Any]) -> str:
    core = {k: v for k, v in params.items() if k not in _STRIP}
    return hashlib.sha256(orjson.dumps(core, option=orjson.OPT_SORT_KEYS)).hexdigest()


def principal_key(principal: Any) -> str:
    """A stable identity of the caller that is the same in every process."""
    if principal is None:
        return ""
    for attr in ("mcp_subject", "subject", "sub", "id", "user_id"):
        value = getattr(principal, attr, None)
        if value is not None:
            return str(value)
    return str(principal) if isinstance(principal, str | int) else type(principal).__name__


class StateCodec:
    def __init__(self, secret: bytes, ttl: float, guard: ReplayGuard) -> None:
        self._secret = secret
        self.ttl = ttl
        self.guard = guard

    def seal(self, method: str, params: dict[str, Any], principal: Any,
             responses: dict[str, Any]) -> str:
        body = orjson.dumps({
            "m": method, "d": params_digest(params), "p": principal_key(principal),
            "e": time.time() + self.ttl, "n": secrets.token_urlsafe(12), "r": responses})
        mac = hmac.new(self._secret, body, hashlib.sha256).digest()
        return (base64.urlsafe_b64encode(body).decode().rstrip("=") + "."
                + base64.urlsafe_b64encode(mac).decode().rstrip("="))

    def open(self, token: Any, method: str, params: dict[str, Any],
             principal: Any) -> dict[str, Any]:
        """Verify a returned state and give back the responses it carries (single use)."""
        if not isinstance(token, str) or token.count(".") != 1:
            raise _invalid()
        body_b64, mac_b64 = token.split(".")
        try:
            body = _b64(body_b64)
            mac = _b64(mac_b64)
        except ValueError:
            raise _invalid() from None
        expected = hmac.new(self._secret, body, hashlib.sha256).digest()
        if not hmac.compare_digest(mac, expected):
            raise _invalid()
        state = orjson.loads(body)
        if (state.get("m") != method or state.get("d") != params_digest(params)
                or state.get("p") != principal_key(principal)):
            raise _invalid("requestState belongs to another request")
        expires = float(state.get("e", 0))
        if expires < time.time():
            raise _invalid("requestState expired: start the request again")
        if not self.guard.use(str(state.get("n")), expires):
            raise _invalid("requestState was already used")
        responses = state.get("r")
        return responses if isinstance(responses, dict) else {}


def _b64(text: str) -> bytes:
    try:
        return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    except (ValueError, TypeError) as exc:
        raise ValueError("bad base64") from exc


def _invalid(message: str = "Invalid requestState") -> InvalidParams:
    return InvalidParams(message, {"argument": "requestState"}, http_status=400)


class RoundTrip:
    """The answers a re-run tool gets for its numbered ``elicit``/``sample`` calls."""

    __slots__ = ("_index", "responses")

    def __init__(self, responses: dict[str, Any]) -> None:
        self.responses = responses
        self._index = 0

    def ask(self, method: str, params: dict[str, Any]) -> Any:
        key = f"r{self._index}"
        self._index += 1
        if key in self.responses:
            return self.responses[key]
        raise InputRequired(key, {"method": method, "params": params})
