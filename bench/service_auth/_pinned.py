"""The service with the caller's resolution taken out: the reference row that shows what
authentication itself costs (issue 19: "an authenticated tools/call within 20 % of an
unauthenticated one").

`create_app()` is the service exactly as `pacekeeper.app:create_app` builds it, except
that the `/mcp` edge resolves each bearer credential once and then hands the same verdict
back for every later request carrying it: no token check, no caller-state check and no
tenant bucket per request, while everything else (the edge, its headers and metrics,
mcpcast, the tool and its answer) runs as in the authenticated row. A refusal is never
kept, so the first call with a token still goes through the real checks.

Served by the benchmark only; the service never builds this.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from starlette.applications import Starlette

from pacekeeper.app import create_app as create_service
from pacekeeper.auth import Principal
from pacekeeper.mcp._edge import Judge
from pacekeeper.mcp._gate import Verdict


def pinned(judge: Judge) -> Judge:
    """`judge`, answering a credential it has admitted once from memory."""
    admitted: dict[str, Principal] = {}

    async def once(services: Any, method: str, headers: Mapping[str, str],
                   same_origins: frozenset[str] | None = None, **kwargs: Any) -> Verdict:
        key = headers.get("authorization")
        known = admitted.get(key) if key is not None else None
        if known is not None:
            return known
        verdict = await judge(services, method, headers, same_origins, **kwargs)
        if key is not None and isinstance(verdict, Principal):
            admitted[key] = verdict
        return verdict

    return once


def create_app() -> Starlette:
    app = create_service()
    # Starlette builds its stack on the first request; built here, the edge can be pinned.
    app.middleware_stack = app.build_middleware_stack()
    edge = getattr(app, "mcp_edge", None)
    if edge is None:
        raise RuntimeError("the service was built without its /mcp edge")
    edge.judge = pinned(edge.judge)
    return app
