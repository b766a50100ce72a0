"""The history a first sync reaches back to: one rule for every provider.

A first sync brings the activities that started on the last ``days`` whole days before
the sync's day, and that day so far: from 00:00 UTC of the UTC day ``days`` days before
the sync's start (docs/fitness.md, "Sync"). Whole days, so what a person gets does not
depend on the time of day they connected, and the first day's load is never half there
(a chart sums load per day). Each provider's listing is asked from one second before that
instant (Strava's ``after`` and Fitbit's ``afterDate`` are exclusive; Garmin lists by
upload time, which is at or after the start) and what started before it is dropped here,
so the edge is the same for all of them.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import replace
from datetime import UTC, datetime, time, timedelta

from ._spec import ActivityBatch, ProviderCall, ProviderSync


def history_start(now: datetime, days: int) -> datetime:
    """00:00 UTC of the UTC day ``days`` days before ``now``'s."""
    first_day = now.astimezone(UTC).date() - timedelta(days=days)
    return datetime.combine(first_day, time(), UTC)


def in_history(start: datetime, first: datetime) -> bool:
    """Whether an activity that started at ``start`` belongs to a history from ``first``."""
    return start >= first


async def history_activities(sync: ProviderSync, call: ProviderCall, now: datetime,
                             days: int) -> AsyncIterator[ActivityBatch]:
    """A first sync's batches from ``sync``: the activities of ``history_start(now,
    days)`` onwards (the provider's own listing, its edge made the common one)."""
    first = history_start(now, days)
    async for batch in sync.activities(call, first - timedelta(seconds=1), now):
        kept = [(a, s) for a, s in batch.items if in_history(a.start, first)]
        yield batch if len(kept) == len(batch.items) else replace(batch, items=kept)


__all__ = ["history_activities", "history_start", "in_history"]
