"""What a client sent, sorted once: the JSON-RPC batch and ``initialize`` rules.

Every transport hands a decoded body or frame (one message or a batch) to ``Inbound``,
the one loop that classifies messages, and asks the rules here, so a batch or an early
request is refused the same way over HTTP, WebSocket and HTTP+SSE. Sans-IO: how a
refusal reaches the client (an HTTP status, a frame) is the transport's business.
"""

from __future__ import annotations

from typing import Any

from .._errors import InvalidRequest, ProtocolError
from .._jsonrpc import Kind, Message, classify, error, id_of
from .versions import BATCH_VERSIONS

NO_BATCHES_NOW = "Invalid Request: batches are not part of protocol 2026-07-28"
INITIALIZE_ALONE = "Invalid Request: initialize must not be part of a batch"


class Inbound:
    """One body or frame, classified in order.

    ``requests`` are the well-formed requests, ``others`` the notifications and responses
    (with their kind), ``answers`` the error responses owed to invalid messages.
    """

    __slots__ = ("answers", "batch", "others", "requests")

    def __init__(self, payload: Any) -> None:
        self.batch = isinstance(payload, list)
        self.answers: list[Message] = []
        self.requests: list[Message] = []
        self.others: list[tuple[Kind, Message]] = []
        for message in payload if self.batch else (payload,):
            try:
                kind = classify(message)
            except ProtocolError as exc:
                self.answers.append(error(id_of(message), exc))
                continue
            if kind is Kind.REQUEST:
                self.requests.append(message)
            else:
                self.others.append((kind, message))

    @property
    def initializes(self) -> bool:
        return any(m["method"] == "initialize" for m in self.requests)

    def refusal(self) -> InvalidRequest | None:
        """What refuses the whole body before any of it runs: an invalid single message,
        or ``initialize`` inside a batch."""
        if not self.batch and self.answers:
            return InvalidRequest(self.answers[0]["error"]["message"])
        if self.batch and self.initializes:
            return InvalidRequest(INITIALIZE_ALONE)
        return None


def batch_refusal(payload: list[Any], limit: int) -> InvalidRequest | None:
    """An empty batch, or one longer than ``limit`` (``ServerConfig.max_batch``)."""
    if not payload:
        return InvalidRequest("Invalid Request: empty batch")
    if len(payload) > limit:
        return InvalidRequest(f"Invalid Request: batch of {len(payload)} messages "
                              f"(limit {limit})")
    return None


def version_refusal(version: str) -> InvalidRequest | None:
    """A batch in a session whose negotiated version has none (2025-06-18 dropped them)."""
    if version in BATCH_VERSIONS:
        return None
    return InvalidRequest(f"Invalid Request: protocol version {version} does not allow batches")


def order_refusal(method: str, *, batch: bool, initialized: bool) -> InvalidRequest | None:
    """``initialize`` first, once and alone; ``ping`` may come before it (a connection's
    session: over Streamable HTTP, the session id itself proves the handshake)."""
    if method == "initialize":
        if batch:
            return InvalidRequest(INITIALIZE_ALONE)
        if initialized:
            return InvalidRequest("Invalid Request: the session is already initialized")
        return None
    if not initialized and method != "ping":
        return InvalidRequest("Invalid Request: send initialize first")
    return None
