"""Multi-round-trip requests (2026-07-28): asking the client for input without a session.

A tool that calls ``ctx.elicit`` or ``ctx.sample`` in the current era is stopped at that
call; the client gets an ``input_required`` result naming what is needed, answers it, and
retries the original request with ``inputResponses`` and the echoed ``requestState``. The
tool then runs again from the top, and each of its ``ctx.elicit``/``ctx.sample`` calls,
numbered in order, gets its answer from the responses gathered so far: write such tools so
that what they do before asking is safe to repeat.

``requestState`` is attacker-controlled, so it is an HMAC-SHA256-signed token binding the
method, a digest of the params, the principal and an expiry, with a nonce that makes every
state single use (a ``ReplayGuard``; the in-memory one covers one process, pass a shared one as
``Server(..., replay_guard=...)`` when several processes serve the same clients).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
import time
from typing import Any, Protocol

import orjson

from .._errors import InvalidParams

ROUND_TRIP_METHODS = frozenset({"tools/call", "prompts/get", "resources/read"})
_STRIP = ("_meta", "inputResponses", "requestState")


class InputRequired(BaseException):
    """Raised inside a handler when the client must answer ``requests`` first.

    ``requests`` maps each question's key to its ``{method, params}``. A BaseException
    (like ``CancelledError``): it is control flow, and a tool's own ``except Exception``
    around ``ctx.elicit`` must not swallow it and break the round trip.
    """

    def __init__(self, requests: dict[str, dict[str, Any]]) -> None:
        super().__init__("input required: " + ", ".join(
            str(r["method"]) for r in requests.values()))
        self.requests = requests


class ReplayGuard(Protocol):
    """Where used ``requestState`` nonces are remembered. Share one (e.g. Redis
    ``SET nonce 1 NX EXAT expires_at``) between processes serving the same clients."""

    async def use(self, nonce: str, expires_at: float) -> bool:
        """Record ``nonce`` as used until ``expires_at``; False if it already was (atomic)."""


class MemoryReplayGuard:
    """Remembers used nonces until their state expires; covers this process only."""

    def __init__(self) -> None:
        self._used: dict[str, float] = {}
        self._prune_at = 10_000

    async def use(self, nonce: str, expires_at: float) -> bool:
        if len(self._used) >= self._prune_at:
            now = time.time()
            self._used = {n: t for n, t in self._used.items() if t > now}
            # Prune again only after doubling: never an O(n) sweep on every request.
            self._prune_at = max(10_000, 2 * len(self._used))
        if nonce in self._used:
            return False
        self._used[nonce] = expires_at
        return True


def params_digest(params: dict[str, Any]) -> str:
    core = {k: v for k, v in params.items() if k not in _STRIP}
    return hashlib.sha256(orjson.dumps(core, option=orjson.OPT_SORT_KEYS)).hexdigest()


def principal_key(principal: Any) -> str:
    """A stable identity of the caller that is the same in every process.

    An identity attribute if the principal has one, else the principal itself as JSON
    (str, dict, dataclass). A principal that is neither fails closed: its states bind to
    this very object, so they verify for no other request (never to "any principal").
    """
    if principal is None:
        return ""
    for attr in ("mcp_subject", "subject", "sub", "id", "user_id"):
        value = getattr(principal, attr, None)
        if value is not None:
            return str(value)
    if isinstance(principal, str | int):
        return str(principal)
    try:
        return hashlib.sha256(orjson.dumps(principal, option=orjson.OPT_SORT_KEYS)).hexdigest()
    except orjson.JSONEncodeError:
        return f"object:{id(principal)}:{secrets.token_hex(8)}"


class StateCodec:
    def __init__(self, secret: bytes, ttl: float, guard: ReplayGuard) -> None:
        self._secret = secret
        self.ttl = ttl
        self.guard = guard

    def seal(self, method: str, params: dict[str, Any], principal: Any,
             responses: dict[str, Any], asked: list[str]) -> str:
        body = orjson.dumps({
            "m": method, "d": params_digest(params), "p": principal_key(principal),
            "e": time.time() + self.ttl, "n": secrets.token_urlsafe(12), "r": responses,
            "a": asked})
        mac = hmac.new(self._secret, body, hashlib.sha256).digest()
        return (base64.urlsafe_b64encode(body).decode().rstrip("=") + "."
                + base64.urlsafe_b64encode(mac).decode().rstrip("="))

    async def open(self, token: Any, method: str, params: dict[str, Any],
                   principal: Any) -> tuple[dict[str, Any], frozenset[str]]:
        """Verify a returned state (single use).

        Gives back the responses gathered in earlier rounds and the keys of the
        questions the client is answering now.
        """
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
        if not await self.guard.use(str(state.get("n")), expires):
            raise _invalid("requestState was already used")
        responses = state.get("r")
        asked = state.get("a")
        return (dict(responses) if isinstance(responses, dict) else {},
                frozenset(k for k in asked if isinstance(k, str))
                if isinstance(asked, list) else frozenset())


def _b64(text: str) -> bytes:
    try:
        return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    except (ValueError, TypeError) as exc:
        raise ValueError("bad base64") from exc


def _invalid(message: str = "Invalid requestState") -> InvalidParams:
    return InvalidParams(message, {"argument": "requestState"}, http_status=400)


# What a valid answer to each kind of question looks like (checked before a tool sees it).
_ANSWER_SHAPES: dict[str, tuple[str, ...]] = {
    "elicitation/create": ("action",),
    "sampling/createMessage": ("role", "content"),
    "roots/list": ("roots",),
}
_ELICIT_ACTIONS = frozenset({"accept", "decline", "cancel"})


def check_answer(key: str, method: str, answer: Any) -> dict[str, Any]:
    """An answer from ``inputResponses``, or -32602 when it is not that method's result."""
    ok = isinstance(answer, dict) and all(k in answer for k in _ANSWER_SHAPES.get(method, ()))
    if ok and method == "elicitation/create":
        content = answer.get("content")
        ok = answer["action"] in _ELICIT_ACTIONS and (content is None
                                                      or isinstance(content, dict))
    elif ok and method == "roots/list":
        ok = isinstance(answer["roots"], list)
    if not ok:
        raise InvalidParams(f"inputResponses[{key!r}] is not a result of {method}",
                            {"argument": "inputResponses"}, http_status=400)
    return answer  # type: ignore[no-any-return]


class RoundTrip:
    """The answers a re-run tool gets for its questions (``elicit``/``sample``/...).

    ``responses`` are trusted: the answers gathered in earlier rounds (from the sealed
    state). ``fresh`` are this request's ``inputResponses``, already narrowed to the keys
    the state asked; each is checked against its question's method when the tool asks it.
    With ``first_round_only`` (a request without a state) fresh answers count only for the
    tool's first round of questions, the ones it asks before it has any answer: what any
    caller would be asked first anyway.
    """

    __slots__ = ("_first_only", "_fresh", "_index", "responses")

    def __init__(self, responses: dict[str, Any], fresh: dict[str, Any] | None = None,
                 *, first_round_only: bool = False) -> None:
        self.responses = responses
        self._fresh = fresh
        self._first_only = first_round_only
        self._index = 0

    def ask(self, questions: list[tuple[str | None, str, dict[str, Any]]]) -> list[Any]:
        """Answers for ``(key, method, params)`` questions asked together, in order; raises
        ``InputRequired`` naming the unanswered ones. A key of None is numbered ``r0``,
        ``r1``, ... in call order."""
        answers: list[Any] = []
        missing: dict[str, dict[str, Any]] = {}
        fresh = self._fresh
        if self._first_only:
            self._fresh = None
        for key, method, params in questions:
            if key is None:
                key = f"r{self._index}"
                self._index += 1
            if key in self.responses:
                answers.append(self.responses[key])
            elif fresh is not None and key in fresh:
                answer = check_answer(key, method, fresh[key])
                self.responses[key] = answer
                answers.append(answer)
            else:
                missing[key] = {"method": method, "params": params}
        if missing:
            raise InputRequired(missing)
        return answers
