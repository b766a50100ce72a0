"""A sync's CPU work runs in the import pool, not on the serving process (issue 30): the
provider's samples put on the 1 Hz grid (``stream_set``) in a worker process."""

from __future__ import annotations

import os
import tempfile
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from pacekeeper.fitness import Owner, sync
from pacekeeper.fitness.models import Streams
from pacekeeper.fitness.streams import StreamSet
from tests.pacekeeper.connections.conftest import ConnHarness

_PIDS = Path(tempfile.gettempdir())
_STREAM_SET = sync.stream_set  # the module's own, before any patch


def stream_set_and_note_pid(raw: Streams) -> StreamSet:
    (_PIDS / f"pk-pool-streams-{raw.activity_id}").write_text(str(os.getpid()))
    return _STREAM_SET(raw)


def _noted(clear: bool = False) -> list[Path]:
    found = list(_PIDS.glob("pk-pool-streams-*"))
    if clear:
        for path in found:
            path.unlink()
    return found


async def _connect(h: ConnHarness, email: str, provider: str, athlete: int) -> Owner:
    user_id, headers = await h.user(email)
    url = await h.approve(await h.authorization_url(provider, user_id, headers), athlete)
    assert (await h.client.get(url)).status_code == 200
    user = await h.services.users.get(uuid.UUID(user_id))
    assert user is not None
    return Owner(user.id, user.tenant_id)


async def test_a_sync_puts_samples_on_the_grid_in_another_process(
        conn_factory: Callable[..., Any], monkeypatch: pytest.MonkeyPatch) -> None:
    # Where it runs, written down by the function itself (it pickles by name).
    monkeypatch.setattr(sync, "stream_set", stream_set_and_note_pid)
    _noted(clear=True)
    async with conn_factory(worker="off", sync_history_days=7, import_workers=1) as h:
        owner = await _connect(h, "pool-sync@example.com", "strava", 7)
        syncs = h.services.syncs
        assert syncs is not None
        report = await syncs.sync(owner, "strava")
        assert report.status == "done", report.message
    noted = _noted()
    assert report.with_streams >= 1 and len(noted) == report.with_streams
    pids = {int(p.read_text()) for p in noted}
    _noted(clear=True)
    assert os.getpid() not in pids
