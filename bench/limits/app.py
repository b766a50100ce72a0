"""The app the limits benchmark serves: `full` as shipped, or `bare` without key checks.

`bare` replaces `ApiKeyService.authenticate` with one that authenticates a key once and
then hands back the same result: every request runs the same route, tool and response
code, minus the key lookup, hash comparison, burst bucket and quota counter. The
difference between the two is what key authentication and rate limiting cost.
"""

from __future__ import annotations

import os
from typing import Any

from starlette.applications import Starlette

from pacekeeper.apikeys import ApiKeyService, KeyCaller
from pacekeeper.app import create_app

_real = ApiKeyService.authenticate


def make_bare(service: ApiKeyService) -> None:
    """Check each key once on this service instance, then reuse the answer."""
    cache: dict[str | None, KeyCaller] = {}

    async def authenticate(plaintext: str | None) -> KeyCaller:
        found = cache.get(plaintext)
        if found is None:
            found = cache[plaintext] = await _real(service, plaintext)
        return found

    service.authenticate = authenticate  # type: ignore[method-assign]


def bench_app(**kwargs: Any) -> Starlette:
    """uvicorn factory: PK_BENCH_MODE=bare makes every ApiKeyService of this process bare."""
    if os.environ.get("PK_BENCH_MODE", "full") == "bare":
        original_init = ApiKeyService.__init__

        def init(self: ApiKeyService, *args: Any, **kw: Any) -> None:
            original_init(self, *args, **kw)
            make_bare(self)

        ApiKeyService.__init__ = init  # type: ignore[method-assign]
    return create_app(**kwargs)
