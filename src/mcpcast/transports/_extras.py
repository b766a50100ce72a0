"""What the server's path serves besides MCP: browser topics and the browser client."""

from __future__ import annotations

import functools
from importlib import resources
from typing import TYPE_CHECKING

from .._errors import InvalidRequest
from ._http import Receive, Scope, Send, reply, reply_error

if TYPE_CHECKING:
    from .streamable_http import StreamableHTTP


async def serve_extras(http: StreamableHTTP, scope: Scope, receive: Receive, send: Send) -> bool:
    """Browser topics at ``<path>/topics/<topic>`` and the client at ``<path>/mcpcast.js``."""
    path: str = scope["path"]
    prefix: str = scope.get("root_path") or http.path
    if not path.startswith(prefix + "/"):
        return False
    rest = path[len(prefix):]
    if rest.startswith("/topics/"):
        refusal = http.check_host_origin(dict(scope["headers"]))
        if refusal is not None:
            await _refuse(scope, send, refusal)
            return True
        topic_scope = scope | {"root_path": prefix + "/topics"}
        await http.topics(topic_scope, receive, send)  # type: ignore[arg-type]
        return True
    if rest == "/mcpcast.js" and scope["type"] == "http":
        await reply(send, 200, _browser_client(), [
            (b"content-type", b"text/javascript; charset=utf-8"),
            (b"cache-control", b"public, max-age=300"),
            (b"x-content-type-options", b"nosniff")])
        return True
    return False


async def _refuse(scope: Scope, send: Send, refusal: tuple[int, str]) -> None:
    if scope["type"] == "websocket":
        await send({"type": "websocket.close", "code": 1008})
    else:
        await reply_error(send, refusal[0], InvalidRequest(refusal[1]))


@functools.cache
def _browser_client() -> bytes:
    return (resources.files("mcpcast") / "static" / "mcpcast.js").read_bytes()
