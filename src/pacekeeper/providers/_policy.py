"""What a provider's terms allow us to do with the data it gives (issue 31 item 2).

Each ``ProviderSpec`` declares a ``DataPolicy`` (docs/providers.md quotes the terms each
one rests on, with the date they were read). ``Policies`` is what one deployment applies:
the declared policies, less what the operator's agreements lift and what the built-in
sandbox (synthetic athletes, no one's data) makes moot. The fitness store applies the
result as plain data (provider ids and ages), so it needs no provider import.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass
from datetime import date, timedelta
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ._spec import ProviderSpec


@dataclass(frozen=True, slots=True)
class DataPolicy:
    """What the provider's developer terms allow for data known only from it."""

    # How long it may be kept (None: as long as the person keeps it here).
    retention: timedelta | None
    # Whether it may be handed to assistants (MCP tools and resources, A2A).
    assistants: bool
    # Whether it may be combined with other sources' data (aggregates, merged activities).
    combined: bool
    # Where the terms are and when we read them (docs/providers.md has the quotes).
    terms: str
    read_on: date
    # The setting (a field of pacekeeper.config.Settings) by which an operator declares an
    # agreement with the provider that allows serving its data to assistants.
    agreement_setting: str | None = None


# A provider whose terms were not declared: nothing to assistants, nothing kept beyond
# what the person asks for. A provider must say what its terms allow to get more.
UNDECLARED = DataPolicy(retention=None, assistants=False, combined=False,
                        terms="(not declared)", read_on=date(1970, 1, 1))


@dataclass(frozen=True, slots=True)
class Policies:
    """The policies in force: which providers' data assistants may not see, and how long
    each provider's data may be kept (data a person also brought as a file is theirs:
    neither applies to it)."""

    withheld: frozenset[str] = frozenset()
    retention: Mapping[str, timedelta] | None = None

    @classmethod
    def of(cls, specs: Iterable[ProviderSpec], *, agreed: Collection[str] = (),
           sandboxed: Collection[str] = ()) -> Policies:
        """From the registry's specs: ``agreed`` the providers whose agreement the operator
        declared, ``sandboxed`` those served by the built-in sandbox (unlimited, allowed)."""
        withheld, kept = set(), {}
        for spec in specs:
            if spec.id in sandboxed:
                continue
            policy = spec.policy
            if not policy.assistants and spec.id not in agreed:
                withheld.add(spec.id)
            if policy.retention is not None:
                kept[spec.id] = policy.retention
        return cls(frozenset(withheld), kept)


def agreements(specs: Iterable[ProviderSpec], settings: object) -> frozenset[str]:
    """The providers whose agreement setting is on in ``settings``."""
    return frozenset(s.id for s in specs if s.policy.agreement_setting
                     and getattr(settings, s.policy.agreement_setting, False) is True)


__all__ = ["UNDECLARED", "DataPolicy", "Policies", "agreements"]
