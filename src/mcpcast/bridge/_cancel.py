"""Requests in flight, so a client's ``notifications/cancelled`` can stop them.

Over HTTP, closing a request's response stream is how a client cancels it; the bridge
also forwards the notification (servers of the handshake era expect it). Nothing more
is relayed for a cancelled request, as the spec asks of a cancelled receiver.
"""

from __future__ import annotations

import json
import threading
from http.client import HTTPResponse
from typing import Any

from ._http import abort

__all__ = ["OpenRequests"]


def _key(request_id: Any) -> str:
    return json.dumps(request_id)  # ids are str or int: 1 and "1" stay distinct


class OpenRequests:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._pending: set[str] = set()
        self._cancelled: set[str] = set()
        self._responses: dict[str, HTTPResponse] = {}

    def register(self, request_id: Any) -> None:
        with self._lock:
            self._pending.add(_key(request_id))

    def opened(self, request_id: Any, response: HTTPResponse) -> None:
        key = _key(request_id)
        with self._lock:
            cancelled = key in self._cancelled
            if not cancelled:
                self._responses[key] = response
        if cancelled:
            abort(response)

    def cancel(self, request_id: Any) -> None:
        """Mark a pending request cancelled and cut its response stream, if open."""
        key = _key(request_id)
        with self._lock:
            if key not in self._pending:
                return  # unknown or finished: nothing to remember
            self._cancelled.add(key)
            response = self._responses.pop(key, None)
        if response is not None:
            abort(response)

    def is_cancelled(self, request_id: Any) -> bool:
        with self._lock:
            return _key(request_id) in self._cancelled

    def finished(self, request_id: Any) -> None:
        key = _key(request_id)
        with self._lock:
            self._pending.discard(key)
            self._cancelled.discard(key)
            self._responses.pop(key, None)
