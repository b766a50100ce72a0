"""What the providers' terms ask of the fitness service (issue 31 item 2): telling an
assistant what it may not see and why, and purging data kept past its term.

The terms themselves are declared by each provider (``providers.DataPolicy``); the
service is handed them as plain data (provider ids, ages), as an ``Owner``'s
``withheld`` and as ``retention``, so it imports no provider.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta

from pacekeeper.fitness._store import SqlFitnessStore
from pacekeeper.owner import Owner


def withheld_reason(providers: frozenset[str], count: int) -> str:
    """Why an assistant does not see ``count`` activities, and how the person brings the
    same history in as their own (docs/providers.md)."""
    names = ", ".join(sorted(providers))
    return (f"{count} {'activity' if count == 1 else 'activities'} known only from "
            f"{names} withheld: its API terms forbid serving them to AI assistants. "
            f"To use the same history, import your {names} account export (\"Download "
            f"your data\") with POST /api/imports: it is then your own.")


class ProviderTerms:
    """FitnessService's part for the providers' terms."""

    store: SqlFitnessStore
    clock: Callable[[], datetime]
    # How long each provider's data may be kept (providers.Policies, set by the wiring).
    retention: dict[str, timedelta]

    async def withheld(self, owner: Owner) -> int:
        """How many of the person's activities ``owner`` (an assistant) may not see."""
        return await self.store.withheld_count(owner.user_id, owner.withheld)

    async def purge_expired(self) -> int:
        """Forget what each provider with a retention term brought longer ago than it
        allows and nothing else gave (a file keeps it: the person's own); returns how
        many activities went."""
        now = self.clock()
        gone = 0
        for provider, term in sorted(self.retention.items()):
            gone += await self.store.purge_expired(provider, now - term)
        return gone


__all__ = ["ProviderTerms", "withheld_reason"]
