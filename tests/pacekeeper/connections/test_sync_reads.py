"""A sync reads its connection row once, not twice per provider request (issue 29).

Before: ``ConnectionService.call`` read the row for the fair-share keys and the token
keeper read it again for the tokens, on every request: a first sync of 365 Strava
activities (one list, one streams request per activity) read it 732 times. Now a sync
holds one ``ProviderSession``: one read, and one more only for a token refresh.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Callable
from typing import Any

import pytest

from pacekeeper.connections._records import StoredConnection
from pacekeeper.fitness._records import Owner
from tests.pacekeeper.connections.conftest import ConnHarness

# PACEKEEPER_SYNC_READS_DAYS=365 measures the full first sync (slow: every activity is
# analysed); the default keeps the test quick, and the count does not grow with it.
DAYS = int(os.environ.get("PACEKEEPER_SYNC_READS_DAYS", "21"))


async def _connected(h: ConnHarness, provider: str) -> tuple[Owner, list[str]]:
    user_id, headers = await h.user(f"reads-{provider}@example.com")
    url = await h.approve(await h.authorization_url(provider, user_id, headers), 7)
    assert (await h.client.get(url)).status_code == 200
    user = await h.services.users.get(uuid.UUID(user_id))
    assert user is not None
    layer = h.services.connection_layer
    assert layer is not None
    reads: list[str] = []
    repository = layer.service.connections
    real_get = repository.get

    async def counted(user_id: uuid.UUID, provider: str) -> StoredConnection | None:
        reads.append(provider)
        return await real_get(user_id, provider)

    # The one store both the service and its token keeper read the row through.
    assert layer.service.keeper._connections is repository
    repository.get = counted  # type: ignore[method-assign]
    return Owner(user.id, user.tenant_id), reads


@pytest.mark.parametrize("provider", ["strava", "fitbit"])
async def test_a_first_sync_reads_the_connection_once(
    conn_factory: Callable[..., Any], provider: str
) -> None:
    async with conn_factory(worker="off", sync_history_days=DAYS) as h:
        owner, reads = await _connected(h, provider)
        # Past the emulated quota a long sync would pause; this counts reads, not waits.
        await h.admin("limits", {"provider": provider, "limits": [[100_000, 86_400.0]]})
        syncs = h.services.syncs
        assert syncs is not None
        sent = len(h.transport.paths)
        report = await syncs.sync(owner, provider)
        requests = len(h.transport.paths) - sent
        assert report.status == "done", report.message
        assert report.imported + report.days > 0 and requests > 2
        print(f"{provider}: {report.imported} activities, {report.days} days, "
              f"{requests} provider requests, {len(reads)} connection reads")
        assert reads == [provider]  # was 2 * requests


async def test_a_refused_token_is_refreshed_once_then_kept(
    conn_factory: Callable[..., Any],
) -> None:
    """The provider refuses the access token it issued (401, it expired on its side
    before ours says): one refresh (its re-read is the locked one) and the sync goes on
    with the fresh tokens, kept for every later request."""
    async with conn_factory(worker="off", sync_history_days=DAYS) as h:
        owner, reads = await _connected(h, "strava")
        await h.admin("expire", {"provider": "strava", "athlete_id": 7})
        syncs = h.services.syncs
        assert syncs is not None
        refreshes = h.transport.token_hits("strava")
        report = await syncs.sync(owner, "strava")
        assert report.status == "done", report.message
        assert h.transport.token_hits("strava") - refreshes == 1
        # The first read, the refresh's look (did someone refresh already?) and, on SQLite,
        # its locked read: per refresh, not per request (12 requests here).
        assert 2 <= len(reads) <= 3
