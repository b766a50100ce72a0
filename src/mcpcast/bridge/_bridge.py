"""The relay: newline-delimited JSON-RPC on stdin/stdout <-> Streamable HTTP (MCP-7).

Requests run concurrently on a thread pool; ``initialize``, notifications and
responses are sent in order on the reading thread, so nothing overtakes the
handshake. ``notifications/cancelled`` also cuts the cancelled request's stream.
Every failure of a request becomes a JSON-RPC error response to it: the bridge
itself never dies on a bad line or a bad server.
"""

from __future__ import annotations

import concurrent.futures
import json
import logging
import random
import threading
import urllib.error
from http.client import HTTPResponse
from typing import IO, Any

from ._cancel import OpenRequests
from ._http import HttpError, StreamableHttp

__all__ = ["Bridge"]

log = logging.getLogger("mcpcast.bridge")

SERVER_ERROR = -32000  # JSON-RPC "implementation-defined server error"
PARSE_ERROR = -32700


class Bridge:
    def __init__(
        self,
        http: StreamableHttp,
        stdin: IO[bytes],
        stdout: IO[bytes],
        *,
        workers: int = 16,
        grace: float = 1.0,
    ) -> None:
        self.http = http
        self._stdin = stdin
        self._stdout = stdout
        self._out_lock = threading.Lock()
        self._pool = concurrent.futures.ThreadPoolExecutor(workers, "bridge")
        self._inflight: set[concurrent.futures.Future[None]] = set()
        self._grace = grace
        self._stopping = threading.Event()
        self._listener: threading.Thread | None = None
        self._last_event_id: str | None = None
        self._requests = OpenRequests()

    # -- output ---------------------------------------------------------------
    def write(self, message: Any) -> None:
        """Write one message (or each of a batch) as a line on stdout."""
        items = message if isinstance(message, list) else [message]
        data = b"".join(
            json.dumps(m, separators=(",", ":"), ensure_ascii=False).encode() + b"\n" for m in items
        )
        with self._out_lock:
            try:
                self._stdout.write(data)
                self._stdout.flush()
            except (BrokenPipeError, ValueError):  # the client is gone: stop quietly
                self._stopping.set()

    def _error(self, request_id: Any, code: int, message: str, data: Any = None) -> None:
        error: dict[str, Any] = {"code": code, "message": message}
        if data is not None:
            error["data"] = data
        self.write({"jsonrpc": "2.0", "id": request_id, "error": error})

    # -- input ----------------------------------------------------------------
    def run(self) -> int:
        """Relay until stdin ends; then finish in-flight requests and end the session."""
        try:
            for line in self._stdin:
                if line.strip():
                    self._handle_line(line)
        except KeyboardInterrupt:
            pass
        finally:
            self._shutdown()
        return 0

    def _handle_line(self, line: bytes) -> None:
        try:
            message = json.loads(line)
        except ValueError:
            self._error(None, PARSE_ERROR, "Parse error: a line on stdin is not JSON")
            return
        is_request = isinstance(message, dict) and "method" in message and "id" in message
        if is_request and message["method"] != "initialize":
            self._requests.register(message["id"])
            future = self._pool.submit(self._send, message)
            self._inflight.add(future)
            future.add_done_callback(self._inflight.discard)
            return
        if isinstance(message, dict) and message.get("method") == "notifications/cancelled":
            params = message.get("params")
            if isinstance(params, dict) and "requestId" in params:
                self._requests.cancel(params["requestId"])
        self._send(message)  # in order: the handshake, notifications, responses

    def _send(self, message: Any) -> None:
        request_id = message.get("id") if isinstance(message, dict) else None
        is_request = isinstance(message, dict) and "method" in message and "id" in message
        is_initialize = is_request and message.get("method") == "initialize"

        if is_request and self._requests.is_cancelled(request_id):
            self._requests.finished(request_id)
            return  # cancelled while it waited for a worker

        def emit(reply: Any) -> None:
            if is_request and self._requests.is_cancelled(request_id):
                return
            answered = is_initialize and isinstance(reply, dict) and reply.get("id") == request_id
            version = _negotiated_version(reply) if answered else None
            if version is not None:
                # Set before the client can see the reply (stdin waits for us meanwhile)...
                self.http.set_protocol_version(version)
            self.write(reply)
            if version is not None:
                self._start_listener()  # ...and stream only after it, to keep the order.

        def opened(response: HTTPResponse) -> None:
            if is_request:
                self._requests.opened(request_id, response)

        try:
            self.http.post(message, emit, opened)
        except HttpError as exc:
            if not (is_request and self._requests.is_cancelled(request_id)):
                self._http_failed(exc, request_id if is_request else None)
        except (urllib.error.URLError, OSError, ValueError) as exc:
            if not (is_request and self._requests.is_cancelled(request_id)):
                self._unreachable(exc, request_id if is_request else None)
        finally:
            if is_request:
                self._requests.finished(request_id)

    def _http_failed(self, exc: HttpError, request_id: Any) -> None:
        if exc.status == 404 and self.http.session_id is not None:
            self.http.forget_session()  # the server ended the session: the client re-initializes
        relayed = _json_rpc_error(exc.body)
        if request_id is None:
            log.warning("server refused a notification/response with %s", exc)
            return
        if relayed is not None:  # the server's own JSON-RPC error, made to answer this id
            relayed["id"] = request_id
            self.write(relayed)
            return
        self._error(
            request_id,
            SERVER_ERROR,
            f"HTTP {exc.status} {exc.reason}".strip(),
            {"httpStatus": exc.status, "body": exc.body[:500]},
        )

    def _unreachable(self, exc: BaseException, request_id: Any) -> None:
        if isinstance(exc, urllib.error.URLError):
            text = f"MCP server unreachable: {exc.reason}"
        elif isinstance(exc, TimeoutError):
            text = "MCP server did not answer in time"
        elif isinstance(exc, ValueError):
            text = "MCP server sent a reply that is not JSON"
        else:
            text = f"connection to the MCP server failed ({type(exc).__name__})"
        if request_id is None:
            log.warning("could not deliver a message to the server: %s", text)
            return
        self._error(request_id, SERVER_ERROR, text)

    # -- server-to-client stream ----------------------------------------------
    def _start_listener(self) -> None:
        if self._listener is None or not self._listener.is_alive():
            self._listener = threading.Thread(target=self._listen, name="bridge-get", daemon=True)
            self._listener.start()

    def _remember_id(self, event_id: str) -> None:
        self._last_event_id = event_id

    def _listen(self) -> None:
        """Keep the GET stream open (reconnecting with backoff) so server requests and
        notifications reach the client."""
        delay = 0.5
        while not self._stopping.is_set():
            try:
                self.http.listen(self.write, self._remember_id, self._last_event_id)
                delay = 0.5  # ended cleanly: reconnect soon
            except HttpError as exc:
                if exc.status in (404, 405, 406):
                    log.info("no server-to-client stream (HTTP %d)", exc.status)
                    return
                log.warning("server-to-client stream refused: %s", exc)
            except (OSError, ValueError) as exc:
                log.info("server-to-client stream dropped: %s", type(exc).__name__)
            wait = delay * (0.5 + random.random())  # noqa: S311 - jitter only
            if self._stopping.wait(wait):
                return
            delay = min(delay * 2, 30.0)

    def _shutdown(self) -> None:
        pending = list(self._inflight)
        if pending:
            concurrent.futures.wait(pending, timeout=self._grace)
        self._stopping.set()
        self._pool.shutdown(wait=False, cancel_futures=True)
        try:
            self.http.delete()
        except (HttpError, OSError, ValueError) as exc:
            log.info("session end (DELETE) failed: %s", exc)


def _negotiated_version(reply: dict[str, Any]) -> str | None:
    result = reply.get("result")
    version = result.get("protocolVersion") if isinstance(result, dict) else None
    return version if isinstance(version, str) else None


def _json_rpc_error(body: str) -> dict[str, Any] | None:
    try:
        parsed = json.loads(body)
    except ValueError:
        return None
    if isinstance(parsed, dict) and isinstance(parsed.get("error"), dict):
        return {"jsonrpc": "2.0", "id": parsed.get("id"), "error": parsed["error"]}
    return None
